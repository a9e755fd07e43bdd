/**
 * What the simulator remembers about each contract. Field names follow the spec (including its
 * `complateTime`), so the admin API can return a record as it is; fields the spec does not have
 * (positions, reminders, approvals, pages) are the simulator's own bookkeeping.
 */
import type {
  ActionStatus,
  AddSignatoryActionType,
  ContractStatus,
  SignatoryStatus,
  TemplateParamType,
  TenantType,
} from '../../schemas/platform/primitives.js';
import type { Attachment, User, UserAuthInfo } from '../../schemas/platform/resources.js';

export interface ActionRecord {
  id: string;
  type: AddSignatoryActionType;
  status: ActionStatus;
  complateTime?: string;
  name?: string;
  serialNo: number;
  sealId?: string;
  operators?: User[];
  corpSealIds?: string[];
  corpOperators?: User[];
}

export interface SignatoryRecord {
  id: string;
  tenantType: TenantType;
  tenantName?: string;
  status: SignatoryStatus;
  complateTime?: string;
  receiver?: User;
  serialNo: number;
  /** The contract's own company signing: it is never reminded. */
  initiator: boolean;
  actions: ActionRecord[];
  attachments?: Attachment[];
  userAuthInfo?: UserAuthInfo;
}

export interface DocumentParam {
  name: string;
  value?: string;
  required: boolean;
  type: TemplateParamType;
  owner: 'INITIATOR' | 'SIGNATORY';
}

export interface DocumentRecord {
  id: string;
  title: string;
  pageCount: number;
  createTime: string;
  /** Text of each page, as read from the upload or rendered from the template. */
  pages: string[];
  templateId?: string;
  params: DocumentParam[];
}

/** A signing position after the simulator located it in a document. */
export interface PositionRecord {
  type: string;
  documentId: string;
  pages: number[];
  actionId?: string;
  signatoryId?: string;
  keyword?: string;
  offsetX?: number;
  offsetY?: number;
}

export interface ReminderRecord {
  time: string;
  signatoryIds: string[];
}

export interface ApprovalRecord {
  time: string;
  signatoryId: string;
  actionId: string;
  pass: boolean;
  comment?: string;
}

export interface ContractRecord {
  id: string;
  bizId?: string;
  /** The owner: the caller's company or the subsidiary it was created as. */
  tenantName: string;
  subject: string;
  description?: string;
  sn: string;
  expireTime: string;
  ordinal: boolean;
  send: boolean;
  category: { id: string; name: string };
  creator?: User;
  status: ContractStatus;
  signatories: SignatoryRecord[];
  templateParams: { name: string; value?: string; required?: boolean }[];
  documents: DocumentRecord[];
  positions: PositionRecord[];
  reminders: ReminderRecord[];
  approvals: ApprovalRecord[];
  createTime: string;
  sendTime?: string;
  complateTime?: string;
}
