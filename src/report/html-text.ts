/** Text inside HTML and SVG: every character that could open markup or close an attribute, escaped. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
