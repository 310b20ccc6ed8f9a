// "Did you mean" for a search that finds nothing: each unknown word replaced by the catalogue's nearest word by edit
// distance.

/**
 * "Did you mean: stand mixer?" for "stnad mixr": each word of a query that is not one of the catalogue's words is
 * replaced by the catalogue word fewest edits away (a letter added, dropped, changed, or two neighbours swapped),
 * if there is one close enough; ties go to the word the catalogue uses most. Pure: the vocabulary is handed in.
 */
export function suggestQuery(query: string, vocabulary: ReadonlyMap<string, number>): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0 || words.length > 8) return null;
  let changed = false;
  const suggested = words.map((word) => {
    if (vocabulary.has(word) || word.length < 3 || /^\d+$/.test(word)) return word;
    const allowed = word.length <= 4 ? 1 : 2;
    let best: { word: string; distance: number; count: number } | null = null;
    for (const [candidate, count] of vocabulary) {
      if (Math.abs(candidate.length - word.length) > allowed) continue;
      const distance = editDistance(word, candidate, allowed);
      if (distance > allowed) continue;
      if (!best || distance < best.distance || (distance === best.distance && count > best.count))
        best = { word: candidate, distance, count };
    }
    if (!best) return word;
    changed = true;
    return best.word;
  });
  return changed ? suggested.join(" ") : null;
}

/** Optimal string alignment distance (Levenshtein with swaps of neighbours), or more than `limit` once it is certain. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      row.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum > limit) return limit + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
