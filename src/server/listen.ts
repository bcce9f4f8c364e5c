import type { Server } from 'node:http';

/** Listens on `host:port` and resolves with the URL it listens at (with port 0, the port picked). */
export async function listen(server: Server, options: { host: string; port: number }): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  // A TCP listener has an AddressInfo: a string would be a pipe's path, null a server that is not listening.
  if (address === null || typeof address === 'string')
    throw new Error(`listening on ${options.host}:${options.port} gave no TCP address`);
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${hostPart}:${address.port}`;
}
