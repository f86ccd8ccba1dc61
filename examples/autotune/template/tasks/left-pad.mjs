// leftPad(text, width, fill = ' '): text padded on the left to width characters.
export default function leftPad(text, width, fill = ' ') {
  return String(text).padStart(width, fill);
}
