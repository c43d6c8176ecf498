/**
 * `enrollees/{id}/deletion-proof/` (JSON) and `enrollees/{id}/deletion-proof.pdf`, and at the plugin's root the public
 * key set that verifies the proofs, `/.well-known/fpa-proof-key.json` (no authentication).
 */
import { Elysia, t } from 'elysia';
import { attachmentDisposition } from '../../platform/http/content-disposition';
import { errors } from '../../platform/http/model';
import { adminRouter, apiRouter, type Http } from '../../platform/http/router';
import { EnrolleeParams } from '../enrollees';
import { DeletionProof, JwksModel } from './model';
import { proofPdf } from './pdf';
import type { DeletionProofs } from './service';

const PROOF_KEY_PATH = '/.well-known/fpa-proof-key.json';
const tags = ['enrollees'];

export function deletionProofRoutes(http: Http, proofs: DeletionProofs) {
  return adminRouter(http, 'deletion-proofs')
    .get('/enrollees/:id/deletion-proof', ({ params, admin }) => proofs.document(params.id, admin, 'json'), {
      params: EnrolleeParams,
      response: { 200: DeletionProof, ...errors('not_found') },
      detail: {
        summary: 'Signed proof that a person’s biometric data was deleted on the server and on every terminal that held it',
        tags,
      },
    })
    .get(
      '/enrollees/:id/deletion-proof.pdf',
      async ({ params, admin, request }) => {
        const proof = await proofs.document(params.id, admin, 'pdf');
        const pdf = await proofPdf(proof, { keyUrl: new URL(PROOF_KEY_PATH, request.url).href });
        return new Response(new Blob([pdf as Uint8Array<ArrayBuffer>]), {
          headers: {
            'content-type': 'application/pdf',
            'content-disposition': attachmentDisposition(`deletion-proof-${proof.employee ?? proof.enrollee}.pdf`),
          },
        });
      },
      {
        params: EnrolleeParams,
        response: {
          200: t.String({ contentMediaType: 'application/pdf', description: 'The same proof as a readable A4 PDF, with its signature.' }),
          ...errors('not_found'),
        },
        detail: { summary: 'The deletion proof as a readable PDF', tags },
      },
    );
}

/** The public keys of the proofs, at the plugin's root (a host may serve `proofs.keys.jwks()` itself). */
export function proofKeyRoutes(http: Http, proofs: DeletionProofs) {
  return new Elysia({ name: 'fpa-proof-key', seed: http.runtime.instanceId }).use(
    apiRouter(http, 'proof-key').get(
      PROOF_KEY_PATH,
      async () =>
        new Response(JSON.stringify(await proofs.keys.jwks()), {
          headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
        }),
      { response: { 200: JwksModel }, detail: { summary: 'Public keys of the deletion proofs (JWKS)', hide: true } },
    ),
  );
}
