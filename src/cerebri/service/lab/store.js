// cerebri Lab, shared by the approvals inbox and the plan page: the caller's token, API
// calls, and signing a decision with the approver's Ed25519 key (WebCrypto).
//
// The token is kept in sessionStorage (this tab only, gone when it closes). The private key
// is kept in this page's memory only, as a non-extractable CryptoKey: never stored, never
// sent. Signing follows cerebri/proposals/signing.py: Ed25519 over
// PAE(type, payload) = "DSSEv1 <len type> <type> <len payload> <payload>", lengths in bytes.
"use strict";

window.cerebriStore = (function () {
  const API = new URL("../v1/", document.baseURI);
  const TOKEN_KEY = "cerebri.token";
  let signingKey = null; // {keyid, key: CryptoKey}

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function fmtInstant(iso) {
    if (!iso) return "–";
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return String(iso);
    const s = d.toISOString();
    return s.slice(0, 10) + " " + s.slice(11, 16) + " UTC";
  }

  const token = () => sessionStorage.getItem(TOKEN_KEY) || "";
  function setToken(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  }

  class ApiError extends Error {
    constructor(status, problem, text) {
      const code = problem && problem.code ? problem.code : "http." + status;
      const detail = problem && problem.detail ? problem.detail : text;
      super("HTTP " + status + " " + code + ": " + detail);
      this.status = status;
      this.code = code;
      this.problem = problem;
    }
  }

  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    const t = token();
    if (t) init.headers.Authorization = "Bearer " + t;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(new URL(path, API), init);
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (!response.ok) throw new ApiError(response.status, data, text);
    return data;
  }

  // ---------- signing ----------
  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  function pae(payloadType, payload) {
    const enc = new TextEncoder();
    const type = enc.encode(payloadType);
    return concat(
      enc.encode("DSSEv1 " + type.length + " "),
      type,
      enc.encode(" " + payload.length + " "),
      payload,
    );
  }

  function fromBase64(text) {
    const raw = atob(text);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function toBase64(bytes) {
    let raw = "";
    for (const b of bytes) raw += String.fromCharCode(b);
    return btoa(raw);
  }

  async function loadKey(keyid, pem) {
    if (!window.crypto || !crypto.subtle) {
      throw new Error("this page is not a secure context (use 127.0.0.1 or HTTPS): WebCrypto is unavailable");
    }
    if (!keyid) throw new Error("enter the keyid the key is registered under");
    const match = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(pem || "");
    if (!match) throw new Error("not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)");
    let der;
    try {
      der = fromBase64(match[1].replace(/\s+/g, ""));
    } catch (_) {
      throw new Error("the PEM body is not base64");
    }
    let key;
    try {
      key = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
    } catch (err) {
      throw new Error("not an Ed25519 private key: " + (err && err.message ? err.message : err));
    }
    signingKey = { keyid, key };
    return keyid;
  }

  function forgetKey() {
    signingKey = null;
  }

  const keyid = () => (signingKey ? signingKey.keyid : null);

  // Decide an approval: fetch what the caller signs, sign PAE(type, payload), post it.
  async function decide(approvalId, decision, reason) {
    if (!signingKey) throw new Error("load your signing key first");
    const detail = await api("GET", "approvals/" + encodeURIComponent(approvalId));
    if (!detail.signing) throw new Error("you cannot decide on this approval (it is not open, or not yours to decide)");
    const payload = fromBase64(detail.signing[decision]);
    const signature = await crypto.subtle.sign({ name: "Ed25519" }, signingKey.key, pae(detail.signing.payload_type, payload));
    const body = { decision, keyid: signingKey.keyid, signature: toBase64(new Uint8Array(signature)) };
    if (reason) body.reason = reason;
    return api("POST", "approvals/" + encodeURIComponent(approvalId) + "/decision", body);
  }

  // Sign any payload (base64) the server hands out, e.g. a proposal envelope's: {keyid, sig}.
  async function signPayload(payloadType, payloadBase64) {
    if (!signingKey) throw new Error("load your signing key first");
    const payload = fromBase64(payloadBase64);
    const signature = await crypto.subtle.sign({ name: "Ed25519" }, signingKey.key, pae(payloadType, payload));
    return { keyid: signingKey.keyid, sig: toBase64(new Uint8Array(signature)) };
  }

  function statusBadge(status) {
    const good = ["completed", "approved", "validated", "confirmed"];
    const bad = ["failed", "rejected", "abandoned", "expired", "cancelled", "blocked", "missed", "withdrawn"];
    const cls = good.includes(status) ? "good" : bad.includes(status) ? "bad" : "warn";
    return el("span", { class: "badge " + cls, "data-status": status, text: status });
  }

  // Token form wiring shared by both pages: #token-input, #token-save, #token-clear, #token-state.
  function wireToken(onChange) {
    const input = document.getElementById("token-input");
    const state = document.getElementById("token-state");
    const show = () => {
      state.textContent = token() ? "A token is set for this tab." : "No token set.";
    };
    document.getElementById("token-save").addEventListener("click", () => {
      setToken(input.value.trim());
      input.value = "";
      show();
      onChange();
    });
    document.getElementById("token-clear").addEventListener("click", () => {
      setToken("");
      show();
      onChange();
    });
    show();
  }

  return { api, ApiError, decide, el, fmtInstant, forgetKey, keyid, loadKey, pae, setToken, signPayload, statusBadge, token, wireToken };
})();
