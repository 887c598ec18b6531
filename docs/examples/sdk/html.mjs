// What an SDK's web view does with acsUiType 05: decode acsHTML (base64url),
// find the form that posts to HTTPS://EMV3DS/challenge, and turn what the
// cardholder filled in and the button pressed into challengeHTMLDataEntry,
// the form's fields url-encoded (docs/app-channel.md).
import { unb64u } from "./exchange.mjs";

/** The URL an SDK intercepts: the form's action on the HTML UI. */
export const HTML_ACTION = "HTTPS://EMV3DS/challenge";

const decodeEntities = (s) => s
  .replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

function attributes(tag) {
  const attrs = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g)) {
    const v = m[2] ?? "";
    attrs[m[1].toLowerCase()] = decodeEntities(v.replace(/^["']|["']$/g, ""));
  }
  return attrs;
}

/**
 * The first form of the page: its action and method, its inputs (name,
 * type, value, checked) and its submit buttons (name, value).
 */
export function parseForm(html) {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error("acsHTML has no <form>");
  const { action = "", method = "get" } = attributes(form[1]);
  const inputs = [];
  const buttons = [];
  for (const m of form[2].matchAll(/<(input|button|textarea|select)\b([^>]*)>/gi)) {
    const a = attributes(m[2]);
    const kind = m[1].toLowerCase();
    if (kind === "button" || (kind === "input" && ["submit", "image"].includes((a.type ?? "").toLowerCase()))) {
      buttons.push({ name: a.name ?? "", value: a.value ?? "", action: a["data-action"] ?? "" });
    } else if (a.name) {
      inputs.push({ name: a.name, type: (a.type ?? (kind === "input" ? "text" : kind)).toLowerCase(), value: a.value ?? "", checked: "checked" in a });
    }
  }
  return { action, method: method.toLowerCase(), inputs, buttons };
}

/** The page of an acsHTML value. */
export const decodeAcsHTML = (acsHTML) => new TextDecoder().decode(unb64u(acsHTML));

/**
 * challengeHTMLDataEntry for a submission: hidden fields as they are, the
 * text typed into the text or password fields (`entry`), the boxes ticked
 * (`choices`: their values), and the action: the button of that value (or
 * data-action) pressed, else an `action` field of that value.
 */
export function formData(form, { entry, choices = [], action }) {
  const out = new URLSearchParams();
  for (const input of form.inputs) {
    if (input.type === "hidden") {
      if (!(action && input.name === "action")) out.append(input.name, input.value);
    } else if (["text", "password", "tel", "number", "textarea"].includes(input.type)) out.append(input.name, entry ?? "");
    else if (["radio", "checkbox"].includes(input.type) && choices.includes(input.value)) out.append(input.name, input.value);
  }
  if (action) {
    const b = form.buttons.find((x) => x.value === action || x.action === action);
    out.append(b?.name || "action", b ? b.value : action);
  }
  return out.toString();
}
