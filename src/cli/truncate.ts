/** At most `max` characters: a longer text is cut and ends with `…`. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
