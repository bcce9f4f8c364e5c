/** A wait in words for a decision's reason: "1.5 s", "30 min", "2 h", "1 d". */
export function formatWait(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size) return `${Number((ms / size).toFixed(1))} ${unit}`;
  }
  return `${ms} ms`;
}
