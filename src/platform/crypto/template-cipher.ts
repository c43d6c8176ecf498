/**
 * Envelope encryption for fingerprint templates: AES-256-GCM via WebCrypto.
 *
 * Key text format (see `generateEncryptionKey`):
 *   fpa1:<keyId>:<base64url of 32 random bytes>
 * where keyId = lowercase hex of the first 4 bytes of SHA-256(key bytes), so
 * a key's id is derived from the key itself and needs no registry.
 *
 * Envelope layout:
 *   [0]            format version (1)
 *   [1]            key id length n
 *   [2 .. 2+n)     key id, ASCII
 *   [2+n .. 14+n)  12-byte random nonce
 *   [14+n ..]      AES-GCM ciphertext followed by the 16-byte tag
 *
 * Additional authenticated data binds the ciphertext to where it is stored:
 *   fpa-template-v1|<purpose>|<enrolleeId>|<fingerIndex>|<version>
 * and, for a biometric other than a fingerprint, `|<kind>|<slot>` after it
 * (UTF-8). The mapping is injective: purpose is an enum, a fingerprint's last
 * two fields are integers and any other's last but one is a lower-case word, so
 * an enrolleeId containing "|" cannot collide. Fingerprints keep the first
 * release's bytes, so their ciphertexts open as they are.
 *
 * Other secrets the service stores (webhook signing secrets, TOTP secrets, the proof-signing key,
 * the passwords terminals report for their users) are sealed by the same ring and
 * envelope under their own AAD, `fpa-secret-v1|<purpose>|<row id>` (`encryptSecret`): its
 * prefix differs from the templates', so no ciphertext of one opens as the other, and the row
 * id binds it to its row (a secret copied to another endpoint does not open there).
 *
 * Security notes: key material and plaintext never appear in errors; keys are
 * imported as non-extractable CryptoKeys and the raw bytes are wiped after
 * import; all decrypt failures share one generic error.
 */
import { createHash } from 'node:crypto';
import { toBase64Url } from './secrets';

export type TemplatePurpose = 'template' | 'staged';

export interface TemplateAad {
  enrolleeId: string;
  fingerIndex: number;
  version: number;
  /** Defaults to "template". */
  purpose?: TemplatePurpose;
  /** A biometric other than a fingerprint (`face`, `palm`…) and its position in a multi-template set. */
  kind?: { type: string; slot: number };
}

/** Malformed key text. The message describes the problem, never the key. */
export class KeyFormatError extends Error {
  override name = 'KeyFormatError';
}

/** Any decryption failure. Deliberately uninformative. */
export class TemplateDecryptError extends Error {
  override name = 'TemplateDecryptError';
  constructor() {
    super('template could not be decrypted');
  }
}

const KEY_PREFIX = 'fpa1';
const KEY_BYTES = 32;
const ENVELOPE_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const MAX_KEY_ID_BYTES = 64;
const AAD_PREFIX = 'fpa-template-v1';
const KEY_ID_RE = /^[0-9a-f]{8}$/;
const KEY_MATERIAL_RE = /^[A-Za-z0-9_-]{43}$/;

function deriveKeyId(raw: Uint8Array): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 8);
}

/** Returns a new random key in the `fpa1:<keyId>:<base64url>` format. */
export function generateEncryptionKey(): string {
  const raw = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const text = `${KEY_PREFIX}:${deriveKeyId(raw)}:${toBase64Url(raw)}`;
  raw.fill(0);
  return text;
}

/** Parses and checks key text. Throws KeyFormatError on malformed input. */
export function parseEncryptionKey(text: string): { id: string; raw: Uint8Array } {
  if (typeof text !== 'string') throw new KeyFormatError('encryption key must be a string');
  const parts = text.trim().split(':');
  if (parts.length !== 3) {
    throw new KeyFormatError(`encryption key must have the form ${KEY_PREFIX}:<keyId>:<base64url key>`);
  }
  const [prefix, id, material] = parts as [string, string, string];
  if (prefix !== KEY_PREFIX) {
    throw new KeyFormatError(`encryption key must start with "${KEY_PREFIX}:"`);
  }
  if (!KEY_ID_RE.test(id)) {
    throw new KeyFormatError('encryption key id must be 8 lowercase hex characters');
  }
  if (!KEY_MATERIAL_RE.test(material)) {
    throw new KeyFormatError(`encryption key material must be ${KEY_BYTES} bytes as 43 unpadded base64url characters`);
  }
  const buf = Buffer.from(material, 'base64url');
  if (buf.length !== KEY_BYTES || buf.toString('base64url') !== material) {
    buf.fill(0);
    throw new KeyFormatError(`encryption key material must be ${KEY_BYTES} bytes as 43 unpadded base64url characters`);
  }
  const raw = new Uint8Array(buf);
  buf.fill(0);
  if (deriveKeyId(raw) !== id) {
    raw.fill(0);
    throw new KeyFormatError('encryption key id does not match the key material (key is corrupted or mistyped)');
  }
  return { id, raw };
}

function isWellFormedString(s: string): boolean {
  return new TextDecoder().decode(new TextEncoder().encode(s)) === s;
}

/** Canonical AAD bytes. Throws TypeError on invalid AAD (a programming error). */
export function templateAadBytes(aad: TemplateAad): Uint8Array<ArrayBuffer> {
  const purpose = aad.purpose ?? 'template';
  if (purpose !== 'template' && purpose !== 'staged') {
    throw new TypeError("template AAD purpose must be 'template' or 'staged'");
  }
  if (typeof aad.enrolleeId !== 'string' || aad.enrolleeId.length === 0 || !isWellFormedString(aad.enrolleeId)) {
    throw new TypeError('template AAD enrolleeId must be a non-empty well-formed string');
  }
  if (!Number.isSafeInteger(aad.fingerIndex) || aad.fingerIndex < 0) {
    throw new TypeError('template AAD fingerIndex must be a non-negative integer');
  }
  if (!Number.isSafeInteger(aad.version) || aad.version < 0) {
    throw new TypeError('template AAD version must be a non-negative integer');
  }
  let kind = '';
  if (aad.kind) {
    if (!/^[a-z_]{1,32}$/.test(aad.kind.type) || aad.kind.type === 'fingerprint')
      throw new TypeError('template AAD kind must be a lower-case word other than fingerprint');
    if (!Number.isSafeInteger(aad.kind.slot) || aad.kind.slot < 0) throw new TypeError('template AAD slot must be a non-negative integer');
    kind = `|${aad.kind.type}|${String(aad.kind.slot)}`;
  }
  // String(-0) === "0", so -0 and 0 share an encoding, as they should.
  return new TextEncoder().encode(`${AAD_PREFIX}|${purpose}|${aad.enrolleeId}|${String(aad.fingerIndex)}|${String(aad.version)}${kind}`);
}

/** What a stored secret other than a template is bound to: what it is and the row holding it. */
export interface SecretAad {
  /**
   * A webhook's signing secret, a user's TOTP secret (sign-in-factors), the deletion proofs'
   * signing key, or the password a terminal holds for one of its users (devices).
   */
  purpose: SecretPurpose;
  /** The id of the row that stores it (the webhook endpoint's id, the user's id, the signing key's id, `<device id>/<PIN>`). */
  id: string;
}

const SECRET_AAD_PREFIX = 'fpa-secret-v1';
const SECRET_PURPOSES = ['webhook_secret', 'totp_secret', 'proof_signing_key', 'terminal_password'] as const;
export type SecretPurpose = (typeof SECRET_PURPOSES)[number];

/** Canonical AAD bytes of a secret. Throws TypeError on invalid AAD (a programming error). */
export function secretAadBytes(aad: SecretAad): Uint8Array<ArrayBuffer> {
  if (!(SECRET_PURPOSES as readonly string[]).includes(aad.purpose)) {
    throw new TypeError(`secret AAD purpose must be one of ${SECRET_PURPOSES.map((p) => `'${p}'`).join(', ')}`);
  }
  if (typeof aad.id !== 'string' || aad.id.length === 0 || !isWellFormedString(aad.id)) {
    throw new TypeError('secret AAD id must be a non-empty well-formed string');
  }
  // The id is last, so any "|" in it cannot make two AADs alike.
  return new TextEncoder().encode(`${SECRET_AAD_PREFIX}|${aad.purpose}|${aad.id}`);
}

interface ParsedEnvelope {
  keyId: string;
  nonce: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

function parseEnvelope(envelope: Uint8Array): ParsedEnvelope {
  if (!(envelope instanceof Uint8Array) || envelope.length < 2) throw new TemplateDecryptError();
  // Copy so later mutation by the caller cannot race with decryption and so
  // the views are backed by a plain ArrayBuffer.
  const bytes = new Uint8Array(envelope);
  if (bytes[0] !== ENVELOPE_VERSION) throw new TemplateDecryptError();
  const idLen = bytes[1] ?? 0;
  if (idLen < 1 || idLen > MAX_KEY_ID_BYTES) throw new TemplateDecryptError();
  const nonceStart = 2 + idLen;
  const ctStart = nonceStart + NONCE_BYTES;
  if (bytes.length < ctStart + TAG_BYTES) throw new TemplateDecryptError();
  let keyId = '';
  for (let i = 2; i < nonceStart; i++) {
    const c = bytes[i] ?? 0;
    if (c < 0x21 || c > 0x7e) throw new TemplateDecryptError();
    keyId += String.fromCharCode(c);
  }
  return {
    keyId,
    nonce: bytes.subarray(nonceStart, ctStart),
    ciphertext: bytes.subarray(ctStart),
  };
}

/** The key id an envelope names (no key needed: it is stored in clear), or null when malformed. */
export function envelopeKeyId(envelope: Uint8Array): string | null {
  try {
    return parseEnvelope(envelope).keyId;
  } catch {
    return null;
  }
}

export class TemplateKeyRing {
  readonly primaryKeyId: string;
  /** Ids of all keys able to decrypt, primary first. */
  readonly keyIds: readonly string[];
  readonly #keys: ReadonlyMap<string, CryptoKey>;

  private constructor(primaryKeyId: string, keys: Map<string, CryptoKey>) {
    this.primaryKeyId = primaryKeyId;
    this.#keys = keys;
    this.keyIds = Object.freeze([...keys.keys()]);
  }

  /**
   * Builds a ring from key texts. The first key encrypts; all keys decrypt.
   * Repeating a key is harmless. Throws KeyFormatError on any malformed key.
   */
  static async fromKeys(keys: readonly string[]): Promise<TemplateKeyRing> {
    if (!Array.isArray(keys) || keys.length === 0) {
      throw new KeyFormatError('at least one template encryption key is required');
    }
    const parsed: { id: string; raw: Uint8Array }[] = [];
    try {
      for (const [i, text] of keys.entries()) {
        try {
          parsed.push(parseEncryptionKey(text));
        } catch (err) {
          if (err instanceof KeyFormatError) throw new KeyFormatError(`key #${i + 1}: ${err.message}`);
          throw err;
        }
      }
      const map = new Map<string, CryptoKey>();
      const fingerprints = new Map<string, string>();
      for (const { id, raw } of parsed) {
        const fp = createHash('sha256').update(raw).digest('hex');
        const seen = fingerprints.get(id);
        if (seen !== undefined) {
          if (seen !== fp) throw new KeyFormatError('two different keys share a key id; generate a new key');
          continue;
        }
        fingerprints.set(id, fp);
        const key = await crypto.subtle.importKey('raw', new Uint8Array(raw), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
        map.set(id, key);
      }
      const primary = parsed[0];
      if (primary === undefined) throw new KeyFormatError('at least one template encryption key is required');
      return new TemplateKeyRing(primary.id, map);
    } finally {
      for (const { raw } of parsed) raw.fill(0);
    }
  }

  /** Encrypts under the primary key. */
  async encrypt(plain: Uint8Array, aad: TemplateAad): Promise<Uint8Array> {
    // Inside the async function: an invalid AAD rejects, as it always did, rather than throws.
    return this.#seal(plain, templateAadBytes(aad));
  }

  /**
   * Decrypts an envelope made by any key in the ring. Throws
   * TemplateDecryptError on unknown key, tampering, AAD mismatch or a
   * malformed envelope; TypeError if `aad` itself is invalid.
   */
  async decrypt(envelope: Uint8Array, aad: TemplateAad): Promise<Uint8Array> {
    return this.#open(envelope, templateAadBytes(aad));
  }

  /** Encrypts a stored secret (not a template) under the primary key, bound to its row. */
  async encryptSecret(plain: Uint8Array, aad: SecretAad): Promise<Uint8Array> {
    return this.#seal(plain, secretAadBytes(aad));
  }

  /** Decrypts what `encryptSecret` made, with any key of the ring; errors as `decrypt`. */
  async decryptSecret(envelope: Uint8Array, aad: SecretAad): Promise<Uint8Array> {
    return this.#open(envelope, secretAadBytes(aad));
  }

  async #seal(plain: Uint8Array, additionalData: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
    if (!(plain instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
    const key = this.#keys.get(this.primaryKeyId);
    if (key === undefined) throw new Error('primary key missing from key ring');
    const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const ct = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData, tagLength: TAG_BYTES * 8 }, key, new Uint8Array(plain)),
    );
    const id = new TextEncoder().encode(this.primaryKeyId);
    const out = new Uint8Array(2 + id.length + NONCE_BYTES + ct.length);
    out[0] = ENVELOPE_VERSION;
    out[1] = id.length;
    out.set(id, 2);
    out.set(nonce, 2 + id.length);
    out.set(ct, 2 + id.length + NONCE_BYTES);
    return out;
  }

  async #open(envelope: Uint8Array, additionalData: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
    const { keyId, nonce, ciphertext } = parseEnvelope(envelope);
    const key = this.#keys.get(keyId);
    if (key === undefined) throw new TemplateDecryptError();
    try {
      return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce, additionalData, tagLength: TAG_BYTES * 8 }, key, ciphertext));
    } catch {
      throw new TemplateDecryptError();
    }
  }

  /** Key id recorded in an envelope. Throws TemplateDecryptError if malformed. */
  keyIdOf(envelope: Uint8Array): string {
    return parseEnvelope(envelope).keyId;
  }

  /** True when the envelope was not made with the primary key. */
  needsReencryption(envelope: Uint8Array): boolean {
    return this.keyIdOf(envelope) !== this.primaryKeyId;
  }

  /** Whether the ring holds a key with this id. */
  hasKey(keyId: string): boolean {
    return this.#keys.has(keyId);
  }
}
