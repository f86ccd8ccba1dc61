// Task T-7: URL slugs for article titles.
export function slugify(text) {
  var lower = text.toLowerCase();
  var dashed = lower.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return dashed;
}
