/**
 * The commands of the bridge benchmark, valid against the simulator's default fixtures
 * (fixtures/default.json). remind and approve address contracts made beforehand (see
 * contracts-setup.ts), one per bizId, each with enough approval (AUDIT) steps for every approve
 * the workload can send it; create-contract starts a new contract: a draft, a template document
 * and its initiation, three platform calls.
 */
import type { Command, CommandType } from '../../src/schemas/messages/index.js';

export const COMPANY = 'Demo Trading Co., Ltd.';
export const SEAL = '2001';
export const APPROVER = { contact: '13800000003', contactType: 'MOBILE' } as const;
export const PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Person 1',
  receiver: { contact: '13900000001', contactType: 'MOBILE' },
} as const;
export const TEMPLATE = { title: 'NDA', templateId: 'tpl-nda' } as const;

export interface Planned {
  readonly type: CommandType;
  readonly command: Command;
}

/** How many commands of each type a round of twenty holds. */
export type Mix = Partial<Record<CommandType, number>>;

/** The throughput scenario: mostly single-call commands, with a share of three-call sagas. */
export const THROUGHPUT_MIX: Mix = { remind: 17, approve: 2, 'create-contract': 1 };
/** The rate-limited drain: one platform call per command. */
export const SINGLE_CALL_MIX: Mix = { remind: 18, approve: 2 };

const ROUND = 20;
/** Coprime with ROUND: consecutive commands walk the round's slots out of order. */
const STRIDE = 7;

export function describeMix(mix: Mix): string {
  return Object.entries(mix)
    .map(([type, n]) => `${Math.round(((n ?? 0) * 100) / ROUND)}% ${type}`)
    .join(', ');
}

export interface WorkloadOptions {
  readonly runId: string;
  /** Contracts made beforehand for remind and approve to address. */
  readonly bizIds: number;
  /** The most commands next() will hand out; it sizes each contract's approval steps. */
  readonly capacity: number;
  readonly mix: Mix;
}

export class Workload {
  readonly bizIds: readonly string[];
  /** AUDIT steps of each contract made beforehand: one per approve it can receive. */
  readonly approvalsPerBizId: number;
  readonly #options: WorkloadOptions;
  readonly #slots: readonly CommandType[];
  readonly #counts = new Map<CommandType, number>();
  #handedOut = 0;

  constructor(options: WorkloadOptions) {
    this.#options = options;
    this.#slots = Object.entries(options.mix).flatMap(([type, n]) =>
      Array<CommandType>(n ?? 0).fill(type as CommandType),
    );
    if (this.#slots.length !== ROUND) throw new Error(`a mix fills ${ROUND} slots`);
    this.bizIds = Array.from({ length: options.bizIds }, (_, i) => `${options.runId}-${i}`);
    const approvals = Math.ceil((options.capacity * (options.mix.approve ?? 0)) / ROUND);
    this.approvalsPerBizId = Math.max(1, Math.ceil(approvals / options.bizIds));
  }

  take(count: number): Planned[] {
    return Array.from({ length: count }, () => this.next());
  }

  next(): Planned {
    if (this.#handedOut >= this.#options.capacity) throw new Error('the workload is used up');
    const type = this.#slots[(this.#handedOut * STRIDE) % ROUND] as CommandType;
    const n = this.#counts.get(type) ?? 0;
    this.#counts.set(type, n + 1);
    this.#handedOut += 1;
    const commandId = `${this.#options.runId}-c${this.#handedOut}`;
    return { type, command: this.#command(type, commandId, n) };
  }

  #command(type: CommandType, commandId: string, n: number): Command {
    const existing = this.bizIds[n % this.bizIds.length] as string;
    switch (type) {
      case 'remind':
        return { commandId, bizId: existing, payload: { onlySigning: false } };
      case 'approve':
        return { commandId, bizId: existing, payload: { pass: true, comment: 'bench' } };
      case 'create-contract':
        return createContract(commandId, `${this.#options.runId}-new-${n}`);
      default:
        throw new Error(`the benchmark sends no ${type} commands`);
    }
  }
}

/** A new contract: its draft, a template document and its initiation (three platform calls). */
export function createContract(commandId: string, bizId: string): Command<'create-contract'> {
  return {
    commandId,
    bizId,
    payload: {
      contract: {
        subject: `Bench ${bizId}`,
        signatories: [
          {
            tenantType: 'COMPANY',
            tenantName: COMPANY,
            actions: [{ type: 'COMPANY', sealId: SEAL }],
          },
          PERSON,
        ],
      },
      documents: [{ source: 'template', ...TEMPLATE }],
      initiate: {},
    },
  };
}
