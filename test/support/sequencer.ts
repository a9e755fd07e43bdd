/**
 * The order the suite's files start in. vitest starts the files that took longest last time
 * first, but a clean clone (CI) has no such record and it starts the largest files first:
 * test/cluster/cluster.test.ts is small and takes minutes (one cluster, its cases in other
 * files), so it would start last and run alone at the end. The files known to take minutes start
 * first here, the rest in vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Folders whose files each take minutes: three JVMs, or two bridge processes and a freeze. */
const LONGEST = ['/test/cluster/', '/test/group/'];

const rank = (file: TestSpecification) =>
  LONGEST.some((folder) => file.moduleId.includes(folder)) ? 0 : 1;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
