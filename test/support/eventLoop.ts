/**
 * The longest the loop went without a turn while `work` ran: a 5 ms timer's largest gap, counted in
 * the process's CPU time over the gap (on a shared machine the wall clock also counts time spent
 * waiting for a core).
 */
export async function longestGap(work: () => Promise<void>): Promise<number> {
  let last = process.cpuUsage();
  let longest = 0;
  const timer = setInterval(() => {
    const spent = process.cpuUsage(last);
    longest = Math.max(longest, (spent.user + spent.system) / 1000);
    last = process.cpuUsage();
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return longest;
}
