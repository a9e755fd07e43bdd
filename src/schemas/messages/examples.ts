/**
 * One example of each command and of each event's data, as the JSON Schemas show them
 * (`examples`). A test parses each with its zod schema, so an example cannot drift from the
 * contract it illustrates. The ids are shaped like the platform's: 19-digit decimal strings.
 */
import type { EventData, EventType } from './events.js';
import type { COMMANDS, Command } from './topics.js';

const CONTRACT_ID = '3141592653589793239';
const COMPANY_SIGNATORY_ID = '3141592653589793240';
const PERSON_SIGNATORY_ID = '3141592653589793241';
const SEAL_ACTION_ID = '3141592653589793242';
const DOCUMENT_ID = '3141592653589793243';
const ADDED_SIGNATORY_ID = '3141592653589793244';
const BIZ_ID = 'order-4711';
const base = <T extends keyof typeof COMMANDS>(type: T, step: string) => ({
  commandId: `${BIZ_ID}-${step}`,
  bizId: BIZ_ID,
  commandType: type,
  contractId: CONTRACT_ID,
});

export const COMMAND_EXAMPLES: { [T in keyof typeof COMMANDS]: Command<T> } = {
  'create-contract': {
    commandId: `${BIZ_ID}-create`,
    bizId: BIZ_ID,
    payload: {
      contract: {
        subject: 'Supply agreement 4711',
        signatories: [
          {
            tenantType: 'COMPANY',
            tenantName: 'Demo Trading Co., Ltd.',
            actions: [{ type: 'COMPANY', sealId: '2001' }],
          },
          {
            tenantType: 'PERSONAL',
            tenantName: 'Wang Fang',
            receiver: { contact: '13800000003', contactType: 'MOBILE' },
          },
        ],
      },
      documents: [
        {
          source: 'file',
          title: 'Supply agreement',
          fileSuffix: 'pdf',
          file: { url: 'https://files.example.com/contracts/4711.pdf' },
        },
      ],
      initiate: {
        stampers: [
          { type: 'COMPANY', signatoryIndex: 0, actionIndex: 0, keyword: 'BUYER-SEAL' },
          { type: 'PERSONAL', signatoryIndex: 1, keyword: 'SUPPLIER-SIGN' },
        ],
      },
    },
  },
  'add-document': {
    commandId: `${BIZ_ID}-nda`,
    bizId: BIZ_ID,
    payload: { source: 'template', title: 'Non-disclosure agreement', templateId: 'tpl-nda' },
  },
  initiate: {
    commandId: `${BIZ_ID}-initiate`,
    bizId: BIZ_ID,
    payload: {
      stampers: [
        { type: 'PERSONAL', signatoryId: PERSON_SIGNATORY_ID, documentId: DOCUMENT_ID, page: 1 },
      ],
    },
  },
  approve: {
    commandId: `${BIZ_ID}-approve`,
    bizId: BIZ_ID,
    payload: { pass: true, comment: 'checked by legal' },
  },
  remind: { commandId: `${BIZ_ID}-remind`, bizId: BIZ_ID, payload: { onlySigning: true } },
  'add-signatory': {
    commandId: `${BIZ_ID}-guarantor`,
    bizId: BIZ_ID,
    payload: {
      signatory: {
        tenantType: 'PERSONAL',
        tenantName: 'Zhao Lei',
        receiver: { contact: 'zhao.lei@example.com', contactType: 'EMAIL' },
        stampers: [{ type: 'PERSONAL', documentId: DOCUMENT_ID, keyword: 'GUARANTOR-SIGN' }],
      },
    },
  },
};

const platformRefusal = {
  code: 'SB_ERR_PLATFORM_REJECTED',
  name: 'PlatformRejected',
  message:
    'createDraft rejected by the platform: 11041701 EMPLOYEE NOT FOUND: no active employee has MOBILE "[number]"',
  retryable: false,
  platformCode: '11041701',
  platformName: 'EMPLOYEE NOT FOUND',
};

export const EVENT_EXAMPLES: { [T in EventType]: EventData<T> } = {
  'signingbridge.draft.created': {
    ...base('create-contract', 'create'),
    status: 'DRAFT',
    subject: 'Supply agreement 4711',
    sn: `SN${CONTRACT_ID}`,
    category: { id: 'cat-general', name: 'General contract' },
    signatories: [
      {
        index: 0,
        id: COMPANY_SIGNATORY_ID,
        tenantType: 'COMPANY',
        tenantName: 'Demo Trading Co., Ltd.',
        status: 'DRAFT',
        serialNo: 1,
        actions: [{ id: SEAL_ACTION_ID, type: 'COMPANY', status: 'INIT', serialNo: 1 }],
      },
      {
        index: 1,
        id: PERSON_SIGNATORY_ID,
        tenantType: 'PERSONAL',
        status: 'DRAFT',
        serialNo: 2,
        actions: [],
      },
    ],
  },
  'signingbridge.document.added': {
    ...base('create-contract', 'create'),
    documentId: DOCUMENT_ID,
    title: 'Supply agreement',
    index: 0,
  },
  'signingbridge.contract.initiated': base('initiate', 'initiate'),
  'signingbridge.approval.recorded': { ...base('approve', 'approve'), pass: true },
  'signingbridge.reminder.sent': { ...base('remind', 'remind'), onlySigning: true },
  'signingbridge.signatory.added': {
    ...base('add-signatory', 'guarantor'),
    signatory: { id: ADDED_SIGNATORY_ID, tenantType: 'PERSONAL', status: 'WAITING', actions: [] },
  },
  'signingbridge.contract.created': {
    ...base('create-contract', 'create'),
    documentIds: [DOCUMENT_ID],
    initiated: true,
    reconciled: false,
  },
  'signingbridge.command.rejected': {
    commandId: `${BIZ_ID}-approve`,
    bizId: BIZ_ID,
    commandType: 'approve',
    final: false,
    error: {
      code: 'SB_ERR_COMMAND_INVALID',
      name: 'CommandInvalid',
      message:
        'signing-bridge.commands.approve/3@42: not a valid approve command: payload.pass: Invalid input: expected boolean, received string',
      retryable: false,
      fields: [{ path: 'payload.pass', rule: 'Invalid input: expected boolean, received string' }],
    },
    source: { topic: 'signing-bridge.commands.approve', partition: 3, offset: '42' },
  },
  'signingbridge.command.failed': {
    ...base('create-contract', 'create'),
    contractId: undefined,
    step: 'draft',
    final: true,
    error: platformRefusal,
  },
  'signingbridge.command.gave-up': {
    ...base('remind', 'remind'),
    step: 'remind',
    final: false,
    attempts: 8,
    error: {
      code: 'SB_ERR_TRANSPORT_HTTP_STATUS',
      name: 'UnexpectedHttpStatus',
      message: 'remindSignatories: unexpected HTTP 503',
      retryable: true,
    },
  },
  'signingbridge.command.precondition-timed-out': {
    ...base('approve', 'approve'),
    contractId: undefined,
    step: 'approve',
    final: false,
    waitedMs: 60000,
    error: {
      code: 'SB_ERR_PLATFORM_REJECTED',
      name: 'PlatformRejected',
      message:
        'approveContract rejected by the platform: 11101003 CONTRACT NOT EXIST: no contract has bizId "order-4711"',
      retryable: false,
      platformCode: '11101003',
      platformName: 'CONTRACT NOT EXIST',
    },
  },
};
