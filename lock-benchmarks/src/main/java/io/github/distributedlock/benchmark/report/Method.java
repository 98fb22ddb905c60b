package io.github.distributedlock.benchmark.report;

/**
 * How the benchmark measures, for the end of the report.
 */
final class Method {

	static final String TEXT = """
			- **Setup.** One fresh `redis-server` (launched by `RedisProcess`, loopback, no persistence) serves every \
			library. Four long-lived worker JVMs (`-Xmx768m -XX:+UseSerialGC`) each host one client of every \
			library, created before any measured phase; scenarios run the libraries one after another, interleaved \
			per scenario. Each measured phase follows a warm-up phase of the same workload, 10 s long: the \
			libraries share Lettuce, Netty and the JDK in each worker JVM, so whichever runs after another makes \
			that code polymorphic and pays for it to be compiled again. After a 2 s warm-up, the JIT compiler \
			threads took 168 µs per acquisition in this project's 2-process phase beside 259 µs of client CPU \
			(RedisLockRegistry, which ran last: 8 beside 180), and the ratio between libraries moved with their \
			order. Even with 10 s, this project's 1-thread throughput rose by about a quarter when the libraries \
			ran in reverse order (this project after the peers), and Spring Integration's did not move, so \
			scenario 2 gives each library 4 fresh worker JVMs of its own (2 for the reactive template), warmed up \
			for 10 s with 2 threads per worker over 8 keys before its first phase; a fresh JVM compiles one \
			library's code only, whatever ran before. A warm-up then goes on, 5 s at a time up to 60 s, while the \
			workers' JIT compiler threads use more than 5% of a core: with one thread in each of 4 processes a \
			worker runs only some hundreds of acquisitions a second, too few to compile this project's waiting \
			code in 10 s, and its JIT took 210–266 µs per acquisition in the measured phase (the peers' 3–40), \
			0–6 µs after 40 s, when its throughput was a third higher.
			- **Libraries.** This project: `RedisLockTemplate.builder(factory).cohorts(64, 20 ms).build()`, the \
			starter's defaults (PUBSUB, cohorts on); *cohorts off* without `cohorts(…)`. Redisson: \
			`getLock(key).tryLock(wait, lease, ms)`, default single-server config. Spring Integration: \
			`RedisLockRegistry` with `PUB_SUB_LOCK`, `obtain(key).tryLock(wait, lease)`. Floor: Lettuce \
			`SET key 1 NX PX` + `DEL`, retrying `SET` at once while taken. Every acquisition passes a 30 s lease \
			and a 10 s wait, so no watchdog or renewal runs.
			- **Clocks.** Workers stamp `System.nanoTime()`, which reads `CLOCK_MONOTONIC` and is comparable across \
			processes on one Linux machine.
			- **Latency.** Acquire+release: from before the acquire call to after the release call returned.
			- **Acquire wait.** From the acquire call to its return, for every acquisition; its maximum shows how \
			long a process was starved while others took the lock again and again.
			- **Hand-off gap.** Per key, acquisitions sorted by when their acquire returned; when the holder changed, \
			the gap runs from the previous holder's release call (stamp taken just before it) to the next holder's \
			acquire returning. A holder is one thread of one process, so with several threads per process a hand-off \
			between two threads of one process counts too. *Changed hands* is the share of successions that went \
			to another thread; the rest went back to the thread that had just released (barging).
			- **Local share and remote wait.** Over the same successions, *next holder in same process* is the share \
			whose next holder ran in the same process as the previous one, the same thread included. *Longest remote \
			wait* is the largest acquire wait among the acquisitions that took the key from a holder in another \
			process: a lock that keeps handing the key around one process makes the other processes' waiters pay \
			for it there. With one process both read n/a.
			- **Overlaps.** An acquisition that returned before an earlier holder of the same key started its release \
			call; checked across every thread of every process, two threads of one process included. Must be 0.
			- **Commands.** *Round trips* are the commands clients sent, counted with `MONITOR` in a separate, \
			unmeasured phase right after the measured one; Redis shows commands run by a Lua script with the source \
			`lua`, and those are left out. *Server commands* come from `INFO commandstats` over the measured phase, \
			which also counts every command run inside a script: *Redis commands / acq.* is their sum. `PING` \
			(Redisson's keep-alive), `INFO`, `CONFIG`, `DBSIZE` and `ECHO` (the harness) are left out of both. \
			Targets use round trips.
			- **Redis CPU.** The growth of `used_cpu_user_main_thread + used_cpu_sys_main_thread` (`INFO cpu`, \
			Redis 6.2+; the whole process's `used_cpu_user + used_cpu_sys` on older servers) over the measured \
			phase, per acquisition; in scenario 5 over the drain, per waiter's acquisition, the blocker's releases \
			included; in scenario 6 summed over the masters.
			- **Client CPU.** In scenarios 1 to 3, the growth of each worker process's CPU time \
			(`getProcessCpuTime`, every thread and GC included) over the measured phase, summed over the workers, \
			minus the CPU time the holding threads spent spinning through their holds (read with \
			`getCurrentThreadCpuTime` around each hold) and minus the JIT compiler threads' CPU time \
			(`/proc/self/task`), per acquisition. The JIT's is shown apart: in scenarios 1 and 3 each worker \
			JVM hosts every library's client and runs them one after another, so code they share (Lettuce, \
			Netty, the JDK) is compiled again in the phases after the first, and a library measured early may \
			still pay for compiling during its measured phase; in scenario 2, a library's first phases in its \
			fresh JVMs may. The other libraries' idle clients' background threads count \
			as client CPU.
			- **Memory and keys.** *Data memory* is `used_memory` minus what connections hold (the sum of \
			`tot-mem` in `CLIENT LIST`, which differs with each library's pool size; not `mem_clients_normal`, \
			which Redis refreshes only about once a second) minus `used_memory_scripts` (the script cache). *Keys left \
			/ name* and *bytes left / name* are the growth of `DBSIZE` and of data memory from before the \
			scenario's warm-up to after its last phase, divided by the distinct lock names it used: every \
			acquisition in scenario 1 (workers never reuse a name), one in scenario 2, every key in scenarios 3, 5 \
			and 6. *Bytes / held lock*: in scenario 1, one thread holds 10,000 new locks at once (200 in smoke \
			runs) and the growth of data memory is divided by them; in scenario 5, the growth while the blocker \
			holds every key and the waiters wait on them (their queues and subscriptions included), per key. \
			Scenarios 2, 3 and 6 hold no known number of locks at one moment, so they show a dash there. \
			Data memory moves by some hundred kilobytes between readings (allocator and dictionary noise), so \
			bytes left, and bytes per held lock in scenario 5, are shown only over 100 names or more: not for the \
			single key of scenario 2.
			- **Cluster (scenario 6).** One master is a `cluster-enabled` redis-server that owns all 16384 slots; \
			three masters are `RedisClusterTopology` from `lock-test-support`. Two fresh worker JVMs per cluster, \
			all started together, run cluster clients (Lettuce `RedisClusterClient`, Spring Data Redis \
			`RedisClusterConfiguration`, Redisson `useClusterServers`) with scenario 3's load; on each cluster every \
			library runs one warm-up before any is measured, then its own warm-up and measured phase. The \
			busiest master's share is its main-thread CPU time over the measured phase's length.
			- **Crash recovery.** A fresh holder JVM takes the lock with the stated lease; a waiter in another JVM \
			starts waiting; the holder is killed with SIGKILL an eighth of the lease later. The delay runs from the \
			end of the lease (the holder's acquire returning + lease; the lease really began up to one round trip \
			earlier) to the waiter's acquire returning.
			- **Many waiters.** A blocker in a pool worker holds every key; two fresh JVMs start their waiting \
			threads. Heap per waiter is the live heap after full GCs while waiting minus before, per thread. \
			Connections and subscriptions are what changed in `INFO clients`, `PUBSUB CHANNELS`/`NUMSUB` and \
			`PUBSUB NUMPAT` since before the waiting JVMs started. Drain time runs from the blocker's first release \
			to the last waiter's release; each waiter releases at once.
			""";

	static final String PEERS = """
			- **Spring Integration 7.1.0, crash recovery.** In `PUB_SUB_LOCK` mode a waiter waits for an unlock \
			message for its whole wait time (`future.get(waitTime)` in `subscribeLock`) and tries again only then; \
			a holder that dies sends no message, so the waiter gets the lock about *wait time − time already waited* \
			after the crash, not when the lease ends.
			- **Spring Integration 7.1.0, many locks on one thread.** Each lock's local `ReentrantLock` comes from a \
			striped `DefaultLockRegistry` keyed by the lock key's hash, so two keys can share one local lock. A thread \
			holding both has a hold count of 2, and `unlock()` of either then only lowers the local count and returns \
			without deleting the Redis key and without an error: the lock stays taken until its lease ends. The \
			blocker of scenario 5 holds every key on one thread and hits this (*blocker's locks left*); the waiters \
			of those keys give up after their wait time. Threads of one process also serialize on unrelated keys \
			that share a stripe (scenario 3).
			- **Redisson 4.7.0** sends a third command per acquire+release: after the unlock script it deletes the \
			`redisson_unlock_latch:{key}:…` key that the script set. With its default pool sizes it opens about 50 \
			connections per process.
			""";

	private Method() {
	}

}
