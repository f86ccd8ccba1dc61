// median(xs): the middle value of the sorted numbers (mean of the two middle ones for even length).
export default function median(xs) {
  const s = [...xs].sort();
  return s[Math.floor(s.length / 2)];
}
