// roman(n): n (1..3999) as a Roman numeral.
export default function roman(n) {
  return 'I'.repeat(n);
}
