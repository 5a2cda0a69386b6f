import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { apiUrl, type Page } from '../api';
import { registrationSample, webinarField, type RegistrationResult } from '../creates/register_participant';
import { optionalText } from '../input';
import { registrationFields } from '../output-fields';

type Registration = Omit<RegistrationResult, 'already_registered'>;

/** The webinar's registration for this email (svc compares case-insensitively), as a list of one, or an empty list. */
export async function findRegistration(z: ZObject, bundle: Bundle): Promise<RegistrationResult[]> {
  const slug = optionalText(bundle.inputData.slug) ?? '';
  const response = await z.request<Page<Registration>>({
    url: apiUrl(bundle, `/webinars/${encodeURIComponent(slug)}/registrations`),
    params: { email: optionalText(bundle.inputData.email) ?? '' },
  });
  return response.data.data.map((registration) => ({ ...registration, already_registered: true }));
}

/** Search: a webinar registration by email; paired with Register Participant as a search-or-create. */
export default defineSearch({
  key: 'find_registration',
  noun: 'Registration',
  display: { label: 'Find Webinar Registration', description: 'Finds someone’s registration for a webinar by their email address.' },
  operation: {
    inputFields: [
      webinarField,
      { key: 'email', label: 'Email', type: 'string', required: true, helpText: 'The registrant’s email address (case does not matter).' },
    ],
    perform: findRegistration,
    sample: { ...registrationSample, already_registered: true },
    outputFields: registrationFields,
  },
});
