import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl } from '../api';
import { dedupeField, idempotencyHeader } from '../idempotency';
import { optionalText } from '../input';
import { registrationFields } from '../output-fields';

/** A registration as svc returns it, plus whether the email was registered before this call. */
export interface RegistrationResult {
  id: string;
  webinar: { slug: string; title: string; meeting_id: string };
  email: string;
  name: string;
  join_url: string;
  created_at: string;
  already_registered: boolean;
}

/** The input naming a webinar: a dropdown of the webinars that take registrations, or a slug typed in. */
export const webinarField = {
  key: 'slug',
  label: 'Webinar',
  type: 'string' as const,
  required: true,
  dynamic: 'webinar_list.slug.title',
  helpText: 'The webinar: pick one, or enter its slug (the name in `/webinars/{slug}/registrations`).',
};

/** A registration as the sample of the registration action and search. */
export const registrationSample: RegistrationResult = {
  id: 'reg_01krc4m8p1r3t5v7x9z2b4d6f7',
  webinar: { slug: 'spring-launch', title: 'Spring launch webinar', meeting_id: 'mtg_01kr8n2v5x8a1d4g7j0m3q6t9w' },
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  join_url:
    'https://meet.example.com/m/xqv-hmtc-zrd?invite=eyJtIjoibXRnXzAxa3JjNG04cDFyM3Q1djd4OXoyYjRkNmYwIiwiciI6InJlZ2lzdHJhbnQifQ.Qm9vZ3VzU2FtcGxlU2lnbmF0dXJl',
  created_at: '2026-05-10T14:02:11.000Z',
  already_registered: false,
};

/**
 * Registers the person; registering an email again returns its existing registration (svc answers 200 instead of 201).
 * svc registers an email once, so only a Deduplication ID adds an Idempotency-Key (a replay then answers exactly as the first run);
 * without one, a second run for the same email reads `already_registered: true`.
 */
export async function registerParticipant(z: ZObject, bundle: Bundle): Promise<RegistrationResult> {
  const slug = optionalText(bundle.inputData.slug) ?? '';
  const body = { email: optionalText(bundle.inputData.email), name: optionalText(bundle.inputData.name) };
  const dedupe = optionalText(bundle.inputData.dedupe_id);
  const response = await z.request<Omit<RegistrationResult, 'already_registered'>>({
    url: apiUrl(bundle, `/webinars/${encodeURIComponent(slug)}/registrations`),
    method: 'POST',
    body,
    headers: idempotencyHeader(bundle, 'register_participant', dedupe !== undefined ? ['dedupe', dedupe] : null),
  });
  return { ...response.data, already_registered: response.status === 200 };
}

/** Action: register someone for a webinar and get their personal join link. */
export default defineCreate({
  key: 'register_participant',
  noun: 'Registration',
  display: {
    label: 'Register Participant',
    description: 'Registers someone for a webinar and returns their personal join link.',
  },
  operation: {
    inputFields: [
      webinarField,
      {
        key: 'email',
        label: 'Email',
        type: 'string',
        required: true,
        helpText: 'The participant’s email address. Registering the same address again returns the existing registration.',
      },
      { key: 'name', label: 'Name', type: 'string', required: true, helpText: 'The participant’s name, as the host sees it.' },
      dedupeField,
    ],
    perform: registerParticipant,
    sample: { ...registrationSample, already_registered: false },
    outputFields: registrationFields,
  },
});
