/**
 * The kafkajs side of the co-partitioned assignment: member metadata carries the instance id
 * (so other members can tell a live owner from a dead one) and the partitions the member
 * holds (so the assignment can be sticky).
 */
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';
import { assignPartitionNumbers, type Subscriber } from './co-partitioned-assignment.js';

export const ASSIGNER_NAME = 'SigningBridgeCoPartitioned';
const VERSION = 1;

export interface MemberUserData {
  readonly instance: string;
  readonly owned: readonly number[];
}

export function encodeUserData(data: MemberUserData): Buffer {
  return Buffer.from(JSON.stringify(data));
}

/** Undefined for metadata that is not ours (another client in the group, or garbage). */
export function decodeUserData(metadata: Buffer): MemberUserData | undefined {
  try {
    const { userData } = AssignerProtocol.MemberMetadata.decode(metadata) ?? {};
    const data = JSON.parse(userData?.toString() ?? '') as Partial<MemberUserData>;
    if (typeof data.instance !== 'string' || !Array.isArray(data.owned)) return undefined;
    return { instance: data.instance, owned: data.owned.filter(Number.isInteger) };
  } catch {
    return undefined;
  }
}

export function coPartitionedAssigner(member: () => MemberUserData): PartitionAssigner {
  return ({ cluster }) => ({
    name: ASSIGNER_NAME,
    version: VERSION,
    async assign({ members, topics }) {
      const counts = topics.map(
        (topic) => [topic, cluster.findTopicPartitionMetadata(topic).length] as const,
      );
      const partitionCount = Math.max(0, ...counts.map(([, count]) => count));
      const subscribers: Subscriber[] = members.map(({ memberId, memberMetadata }) => ({
        memberId,
        owned: decodeUserData(memberMetadata)?.owned ?? [],
      }));
      const numbers = assignPartitionNumbers(subscribers, partitionCount);
      return members.map(({ memberId }) => {
        const mine = numbers.get(memberId) ?? [];
        const assignment = Object.fromEntries(
          counts.map(([topic, count]) => [topic, mine.filter((p) => p < count)]),
        );
        return {
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: VERSION,
            assignment,
            userData: Buffer.alloc(0),
          }),
        };
      });
    },
    protocol({ topics }) {
      return {
        name: ASSIGNER_NAME,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: VERSION,
          topics,
          userData: encodeUserData(member()),
        }),
      };
    },
  });
}
