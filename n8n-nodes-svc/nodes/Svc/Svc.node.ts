import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { searchMeetings, searchWebinars } from '../shared/locators';
import { NodeConnectionTypes } from 'n8n-workflow';
import * as meeting from './actions/meeting';
import * as participant from './actions/participant';
import * as recording from './actions/recording';
import * as registration from './actions/registration';
import { router } from './actions/router';
import * as summary from './actions/summary';
import * as transcript from './actions/transcript';

/** The svc node: meetings, webinar registrations, recordings, transcripts and summaries through svc's public REST API. */
export class Svc implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Svc',
    name: 'svc',
    icon: { light: 'file:../../icons/svc.svg', dark: 'file:../../icons/svc.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description:
      'Create, end, cancel and reopen svc meetings, register webinar participants, list participants, and download recordings, transcripts and summaries',
    defaults: { name: 'Svc' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'svcApi', required: true }],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Meeting', value: 'meeting' },
          { name: 'Participant', value: 'participant' },
          { name: 'Participant Registration', value: 'registration' },
          { name: 'Recording', value: 'recording' },
          { name: 'Summary', value: 'summary' },
          { name: 'Transcript', value: 'transcript' },
        ],
        default: 'meeting',
      },
      ...meeting.description,
      ...participant.description,
      ...registration.description,
      ...recording.description,
      ...transcript.description,
      ...summary.description,
    ],
  };

  methods = { listSearch: { searchMeetings, searchWebinars } };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await router.call(this);
  }
}
