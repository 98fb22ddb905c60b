package io.github.distributedlock.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * A Redis Sentinel deployment of launched processes: a master, one replica and three
 * Sentinels monitoring them with a quorum of two.
 * <p>
 * The Sentinels deem a server down after 1 second without an answer and time a failover
 * out after 3 seconds, so that killing or pausing the current master fails over within
 * seconds. Each Sentinel has its own config file, which it rewrites with what it learns.
 * {@link #master()} and {@link #replica()} are the processes launched in those roles;
 * after a failover {@link #currentMaster()} tells which one is the master. All methods
 * are thread-safe; {@link #failover()} and {@link #close()} run one at a time.
 */
public final class RedisSentinelTopology implements RedisTopology {

	/**
	 * The name the Sentinels monitor the master under unless another one is given.
	 */
	public static final String DEFAULT_MASTER_NAME = "mymaster";

	private static final String HOST = LoopbackPorts.HOST;

	private static final int SENTINELS = 3;

	private static final int QUORUM = 2;

	private static final Pattern MASTER_NAME = Pattern.compile("[A-Za-z0-9._:-]+");

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(20);

	private final String masterName;

	private final RedisProcess master;

	private final RedisProcess replica;

	private final SentinelGroup sentinels;

	private boolean closed;

	private RedisSentinelTopology(String masterName, RedisProcess master, RedisProcess replica,
			List<RedisProcess> sentinels) {
		this.masterName = masterName;
		this.master = master;
		this.replica = replica;
		this.sentinels = new SentinelGroup(masterName, sentinels);
	}

	/**
	 * Launch a master, a replica and three Sentinels monitoring them as
	 * {@value #DEFAULT_MASTER_NAME}, and wait until every Sentinel knows the replica and
	 * the other Sentinels.
	 * @return the running topology, which the caller closes
	 * @throws IllegalStateException if there is no {@code redis-server} binary or the
	 * topology is not ready within 20 seconds; whatever was launched is closed
	 */
	public static RedisSentinelTopology start() {
		return start(DEFAULT_MASTER_NAME);
	}

	/**
	 * Launch a master, a replica and three Sentinels monitoring them under a name, and
	 * wait until every Sentinel knows the replica and the other Sentinels.
	 * @param masterName the name clients ask the Sentinels for, made of letters, digits,
	 * '.', '_', '-' and ':'
	 * @return the running topology, which the caller closes
	 * @throws IllegalStateException if there is no {@code redis-server} binary or the
	 * topology is not ready within 20 seconds; whatever was launched is closed
	 */
	public static RedisSentinelTopology start(String masterName) {
		requireValidMasterName(masterName);
		Path binary = RedisBinary.require(System::getenv);
		ProcessGroup group = new ProcessGroup();
		try {
			RedisProcess master = group.add(dataNode(binary));
			RedisProcess replica = group.add(dataNode(binary, "--replicaof", HOST, Integer.toString(master.port())));
			// Sentinels find replicas in the master's INFO, asked on connect and then
			// every 10 s: a replica that
			// connects after a Sentinel's first INFO would stay unknown to it for that
			// long.
			awaitInSync(master, replica);
			List<RedisProcess> sentinels = new ArrayList<>();
			for (int i = 0; i < SENTINELS; i++) {
				sentinels.add(group.add(sentinel(binary, masterName, master)));
			}
			RedisSentinelTopology topology = new RedisSentinelTopology(masterName, master, replica, sentinels);
			topology.awaitSentinelsAgree();
			return topology;
		}
		catch (RuntimeException ex) {
			throw group.abandon(ex);
		}
	}

	static String requireValidMasterName(String masterName) {
		if (!MASTER_NAME.matcher(masterName).matches()) {
			throw new IllegalArgumentException(
					"Master name must be letters, digits, '.', '_', '-' or ':', was '" + masterName + "'");
		}
		return masterName;
	}

	/**
	 * Return the name the Sentinels monitor the master under.
	 * @return the master name
	 */
	public String masterName() {
		return this.masterName;
	}

	/**
	 * Return the process launched as the master, a replica after a {@link #failover()}.
	 * @return the process
	 */
	public RedisProcess master() {
		return this.master;
	}

	/**
	 * Return the process launched as the replica, the master after a {@link #failover()}.
	 * @return the process
	 */
	public RedisProcess replica() {
		return this.replica;
	}

	/**
	 * Return the three Sentinels.
	 * @return an immutable list of the Sentinel processes
	 */
	public List<RedisProcess> sentinels() {
		return this.sentinels.processes();
	}

	/**
	 * Return the addresses of the three Sentinels, which is what Sentinel-aware clients
	 * are configured with.
	 * @return an immutable list of addresses
	 */
	public List<HostAndPort> sentinelAddresses() {
		return sentinels().stream().map(HostAndPort::of).toList();
	}

	/**
	 * Return the master, the replica and the Sentinels, in that order.
	 * @return an immutable list of every process
	 */
	@Override
	public List<RedisProcess> processes() {
		List<RedisProcess> processes = new ArrayList<>(List.of(this.master, this.replica));
		processes.addAll(sentinels());
		return List.copyOf(processes);
	}

	/**
	 * Return the process the Sentinels currently report as the master, asking each
	 * running Sentinel in turn until one answers
	 * {@code SENTINEL GET-MASTER-ADDR-BY-NAME}.
	 * @return {@link #master()} or {@link #replica()}
	 * @throws IllegalStateException if no Sentinel answers or one reports an address
	 * outside this topology
	 */
	public RedisProcess currentMaster() {
		return processAt(this.sentinels.reportedMaster());
	}

	/**
	 * Make a Sentinel promote the replica of the current master
	 * ({@code SENTINEL FAILOVER}, which needs no quorum) and wait until the promoted
	 * server has role master and every running Sentinel reports it. The old master is
	 * made a replica of the new one by the Sentinels about 8 seconds later;
	 * {@link #awaitReplicaInSync()} waits for that.
	 * @throws IllegalStateException if the failover does not complete within 20 seconds,
	 * or a Sentinel refuses it for another reason than a replica it does not deem healthy
	 * yet
	 */
	public synchronized void failover() {
		requireOpen();
		RedisProcess from = currentMaster();
		RedisProcess to = other(from);
		AtomicBoolean requested = new AtomicBoolean();
		Await.until("master '" + this.masterName + "' failed over from " + HostAndPort.of(from) + " to "
				+ HostAndPort.of(to) + ", which must have role master and be reported by every running Sentinel",
				FAILOVER_TIMEOUT, () -> isRequested(requested) && isPromoted(to), this::describe);
	}

	/**
	 * Wait until the server that is not the {@link #currentMaster() current master}
	 * replicates it with its link up and has received every write the master had accepted
	 * when this method was called.
	 * @throws IllegalStateException if that does not happen within 20 seconds
	 */
	public void awaitReplicaInSync() {
		RedisProcess current = currentMaster();
		awaitInSync(current, other(current));
	}

	/**
	 * Stop the Sentinels, then the replica and the master.
	 */
	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		// Sentinels first: ones outliving the master would start a failover while the
		// topology is being stopped.
		List<RedisProcess> order = new ArrayList<>(sentinels());
		order.add(this.replica);
		order.add(this.master);
		ProcessGroup.closeAll(order);
	}

	@Override
	public String toString() {
		return "RedisSentinelTopology[" + this.masterName + ", master " + HostAndPort.of(this.master) + ", replica "
				+ HostAndPort.of(this.replica) + ", sentinels " + sentinelAddresses() + "]";
	}

	private static RedisProcess dataNode(Path binary, String... args) {
		// Redis delays a diskless sync by 5 s by default in case more replicas come; this
		// one is all there is, and
		// after a failover the old master syncs from the new one.
		return RedisProcess.builder().binary(binary).args("--repl-diskless-sync-delay", "0").args(args).launch();
	}

	private static RedisProcess sentinel(Path binary, String masterName, RedisProcess master) {
		return RedisProcess.builder()
			.binary(binary)
			.config("sentinel resolve-hostnames no",
					"sentinel monitor " + masterName + " " + HOST + " " + master.port() + " " + QUORUM,
					"sentinel down-after-milliseconds " + masterName + " 1000",
					"sentinel failover-timeout " + masterName + " 3000")
			.args("--sentinel")
			.launch();
	}

	private void awaitSentinelsAgree() {
		Await.until(
				"every Sentinel knows master '" + this.masterName + "', its replica " + HostAndPort.of(this.replica)
						+ " and the " + (SENTINELS - 1) + " other Sentinels",
				STARTUP_TIMEOUT, () -> this.sentinels.allKnow(HostAndPort.of(this.replica)), this::describe);
	}

	private boolean isRequested(AtomicBoolean requested) {
		if (!requested.get() && this.sentinels.requestFailover()) {
			requested.set(true);
		}
		return requested.get();
	}

	private boolean isPromoted(RedisProcess candidate) {
		return "master".equals(replication(candidate).get("role"))
				&& this.sentinels.allReport(HostAndPort.of(candidate));
	}

	private static void awaitInSync(RedisProcess master, RedisProcess replica) {
		long target = Long.parseLong(replication(master).getOrDefault("master_repl_offset", "0"));
		Await.until(HostAndPort.of(replica) + " replicates " + HostAndPort.of(master)
				+ " with its link up, up to offset " + target, SYNC_TIMEOUT, () -> {
					Map<String, String> info = replication(replica);
					return "slave".equals(info.get("role"))
							&& String.valueOf(master.port()).equals(info.get("master_port"))
							&& "up".equals(info.get("master_link_status"))
							&& Long.parseLong(info.getOrDefault("slave_repl_offset", "-1")) >= target;
				}, () -> "Master: " + describeReplication(master) + "; replica: " + describeReplication(replica));
	}

	private RedisProcess processAt(HostAndPort address) {
		for (RedisProcess candidate : List.of(this.master, this.replica)) {
			if (HostAndPort.of(candidate).equals(address)) {
				return candidate;
			}
		}
		throw new IllegalStateException("The Sentinels report master '" + this.masterName + "' at " + address
				+ ", which is not a server of " + this);
	}

	private RedisProcess other(RedisProcess dataNode) {
		return (dataNode == this.master) ? this.replica : this.master;
	}

	private void requireOpen() {
		if (this.closed) {
			throw new IllegalStateException(this + " has been closed");
		}
	}

	private static Map<String, String> replication(RedisProcess server) {
		return InfoFields.parse(server.command("INFO", "replication"));
	}

	private String describe() {
		return this.sentinels.describe() + " Servers: " + describeReplication(this.master) + "; "
				+ describeReplication(this.replica);
	}

	private static String describeReplication(RedisProcess server) {
		return HostAndPort.of(server) + " " + SentinelGroup.ask(server, (s) -> {
			Map<String, String> info = replication(s);
			return "role " + info.get("role") + ", link " + info.get("master_link_status") + ", offset "
					+ info.get("master_repl_offset");
		});
	}

}
