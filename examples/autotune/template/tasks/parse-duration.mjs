// parseDuration(text): "1h30m15s"-style text to seconds; throws on anything else.
export default function parseDuration(text) {
  return Number.parseInt(text, 10);
}
