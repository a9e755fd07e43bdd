/**
 * The demo's story: two contracts taken through every command type, a business failure and a
 * malformed command among them. Commands that need an earlier outcome (an approval needs the
 * initiated contract, positions need the platform's ids) go out only once its event arrived.
 */
import type { DraftSignatory, EventType } from '../../src/schemas/messages/index.js';
import type { BridgeEvent } from '../../src/sdk/index.js';
import type { AdminClient, ContractRecord } from '../../src/simulator/index.js';
import {
  addGuarantor,
  addPurchaseTerms,
  approveLease,
  createLease,
  createLeaseAgain,
  createSupplyDraft,
  initiateSupply,
  malformedApproval,
  remindTenant,
  type StoryCommand,
} from './commands.js';
import type { Deadline, DemoKafka } from './kafka-io.js';

export interface StoryReport {
  act(title: string): void;
  sent(command: StoryCommand): void;
  /** A contract as the platform holds it at the end. */
  finalState(contract: ContractRecord): void;
}

export interface StoryDeps {
  readonly io: DemoKafka;
  readonly admin: AdminClient;
  /** Tells this run's bizIds and commandIds apart from other runs'. */
  readonly run: string;
  readonly deadline: Deadline;
  readonly report: StoryReport;
}

export interface StoryOutcome {
  readonly command: StoryCommand;
  /** The type of its terminal event. */
  readonly ended: EventType;
}

export interface StoryResult {
  readonly outcomes: readonly StoryOutcome[];
  readonly contracts: readonly ContractRecord[];
}

/** A command ended with another terminal event than the story expects. */
export class UnexpectedEndings extends Error {
  constructor(readonly outcomes: readonly StoryOutcome[]) {
    const lines = outcomes.map(
      ({ command, ended }) =>
        `${command.command.commandId} (${command.type}) ended ${ended}, expected ${command.expected}`,
    );
    super(`the story went off course: ${lines.join('; ')}`);
  }
}

export async function runStory(deps: StoryDeps): Promise<StoryResult> {
  const { io, admin, run, report } = deps;
  const lease = `lease-${run}`;
  const supply = `supply-${run}`;
  let count = 0;
  const meta = (bizId: string) => ({
    commandId: `${run}-${String(++count).padStart(2, '0')}`,
    bizId,
  });
  const outcomes: StoryOutcome[] = [];
  const act = async (title: string, commands: StoryCommand[]) => {
    report.act(title);
    for (const command of commands) {
      await io.send(command);
      report.sent(command);
    }
    const ids = commands.map((c) => c.command.commandId);
    await io.waitForEndings(ids, deps.deadline);
    const ended = commands.map((command) => ({ command, ended: endingOf(io, command).type }));
    outcomes.push(...ended);
    const wrong = ended.filter((o) => o.ended !== o.command.expected);
    // Later acts build on these outcomes: going on would only add confusing failures.
    if (wrong.length > 0) throw new UnexpectedEndings(wrong);
  };

  const createdLease = await createLease(meta(lease));
  const createdSupply = createSupplyDraft(meta(supply));
  await act(
    'Two contracts: a lease, initiated on creation, and a supply agreement kept as a draft',
    [createdLease, createdSupply],
  );

  const terms = addPurchaseTerms(meta(supply));
  await act(
    'The draft gets its terms; the lease is approved and its tenant reminded; two mistakes',
    [
      terms,
      approveLease(meta(lease)),
      remindTenant(meta(lease)),
      createLeaseAgain(meta(lease)),
      malformedApproval(meta(lease)),
    ],
  );

  const draft = stepData(io, createdSupply, 'signingbridge.draft.created')
    .signatories as DraftSignatory[];
  const termsId = dataOf(endingOf(io, terms)).documentId as string;
  const leaseDocuments = dataOf(endingOf(io, createdLease)).documentIds as string[];
  await act('The supply agreement is initiated; a guarantor joins the lease', [
    initiateSupply(meta(supply), draft, termsId),
    addGuarantor(meta(lease), leaseDocuments[0] as string),
  ]);

  report.act('Everyone signs (acting as the signatories through the simulator admin API)');
  const contracts = [];
  for (const bizId of [lease, supply]) {
    const contract = await admin.signAll({ bizId });
    report.finalState(contract);
    contracts.push(contract);
  }
  return { outcomes, contracts };
}

function endingOf(io: DemoKafka, command: StoryCommand): BridgeEvent {
  const ending = io.endingOf(command.command.commandId);
  if (!ending) throw new Error(`${command.command.commandId} has no terminal event yet`);
  return ending;
}

/** The data of a step event: it comes before its command's terminal event (same key, same partition). */
function stepData(io: DemoKafka, command: StoryCommand, type: EventType) {
  const { commandId } = command.command;
  const step = io.eventsOf(commandId).find((e) => e.type === type);
  if (!step) throw new Error(`${commandId} has no ${type} event`);
  return dataOf(step);
}

function dataOf(event: BridgeEvent): Readonly<Record<string, unknown>> {
  return event.data;
}
