// /fortunes' page, TechEmpower's, written as the blog's server writes HTML:
// a template literal and a hand-written escape, since Node has no HTML
// escaping function of its own and this entry uses no framework.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe inside an HTML element or a quoted attribute. */
export const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const ADDED = { id: 0, message: 'Additional fortune added at request time.' };

/** The page of the stored fortunes and the one added now, sorted by message. */
export function fortunesPage(stored) {
  // `<` compares UTF-16 code units, which is code point order for these
  // messages (no character outside the Basic Multilingual Plane among them).
  const list = [...stored, ADDED].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  const rows = list.map((f) => `<tr><td>${f.id}</td><td>${escapeHtml(f.message)}</td></tr>`).join('');
  return `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>${rows}</table></body></html>`;
}
