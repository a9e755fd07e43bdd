/**
 * Whether `work` settles within `ms`. The timer is cleared as soon as the work is done, so a
 * deadline that did not matter keeps nothing alive: a stopped bridge lets its process exit.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([work.then(() => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
