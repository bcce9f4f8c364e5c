// toolgate as a library with the memory store.
import type { CreateRunner } from '../runner.ts';
import { libraryRunner } from './toolgate-library.ts';
import { openToolgate } from './toolgate-setup.ts';

export const createRunner: CreateRunner = async (options) =>
  libraryRunner(await openToolgate(options, 'memory:'), options);
