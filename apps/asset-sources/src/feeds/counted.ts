/** "1 row", "3 rows": a count with its noun, for the messages and reports a customer reads. */
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;
