/**
 * The shared-secret handshake between the control plane and a media node (SVC_NODE_SECRET). The control plane
 * opens the node's control channel with a credential: a timestamp, a random nonce and an HMAC-SHA256 of both
 * under the secret. The node refuses the upgrade unless the credential is fresh, unseen and correct; it answers
 * with a proof (an HMAC over the control plane's nonce), so the control plane knows it reached a node that holds
 * the secret. Comparisons are constant-time; neither the secret nor a credential is ever logged.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The request header carrying the control plane's credential. */
export const CREDENTIAL_HEADER = 'x-svc-node-credential';
/** The response header carrying the node's proof. */
export const PROOF_HEADER = 'x-svc-node-proof';
/** How far a credential's timestamp may be from the node's clock. */
export const CREDENTIAL_WINDOW_MS = 30_000;
/** Nonces remembered at most (older ones fall out of the window anyway). */
const MAX_REMEMBERED_NONCES = 10_000;

function mac(secret: string, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest();
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh credential for one connection, and its nonce (to check the node's proof with). */
export function createCredential(secret: string, now = Date.now()): { header: string; nonce: string } {
  const nonce = randomBytes(16).toString('hex');
  const signed = `control|${now}|${nonce}`;
  return { header: `v1.${now}.${nonce}.${mac(secret, signed).toString('hex')}`, nonce };
}

/** The node's answer to a credential with `nonce`. */
export function proofFor(secret: string, nonce: string): string {
  return mac(secret, `node|${nonce}`).toString('hex');
}

/** True when `proof` (the node's response header) answers the credential with `nonce`. */
export function verifyProof(secret: string, nonce: string, proof: string | undefined): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return sameBytes(Buffer.from(proof, 'hex'), mac(secret, `node|${nonce}`));
}

/** Checks credentials on the node: fresh, correct and each nonce accepted once. */
export class CredentialVerifier {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The credential's nonce when `header` is valid (and remembers it), else undefined. */
  verify(header: string | string[] | undefined): string | undefined {
    if (typeof header !== 'string' || header.length > 200) return undefined;
    const match = /^v1\.(\d{1,15})\.([0-9a-f]{32})\.([0-9a-f]{64})$/.exec(header);
    if (!match) return undefined;
    const [, stamp, nonce, signature] = match as unknown as [string, string, string, string];
    const now = this.now();
    if (Math.abs(now - Number(stamp)) > CREDENTIAL_WINDOW_MS) return undefined;
    if (!sameBytes(Buffer.from(signature, 'hex'), mac(this.secret, `control|${stamp}|${nonce}`))) return undefined;
    this.forgetOld(now);
    if (this.seen.has(nonce)) return undefined;
    this.seen.set(nonce, now);
    return nonce;
  }

  private forgetOld(now: number): void {
    for (const [nonce, at] of this.seen) {
      if (now - at <= 2 * CREDENTIAL_WINDOW_MS && this.seen.size < MAX_REMEMBERED_NONCES) break;
      this.seen.delete(nonce);
    }
  }
}
