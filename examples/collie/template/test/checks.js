// The library's checks: [expression, expected value].
export const checks = [
  ['clamp(5, 0, 3)', 3],
  ['clamp(-1, 0, 3)', 0],
  ['median([3, 1, 2])', 2],
  ['median([10, 9, 1])', 9],
  ['mean([1, 2, 3, 4])', 2.5],
  ['mean([5])', 5],
];
