// slugify(text): lower-case words joined by "-", other characters dropped.
export default function slugify(text) {
  return text.toLowerCase().replace(' ', '-');
}
