package dev.idempotent.messaging.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker in the test JVM: one node in KRaft mode (broker and controller), started from
 * the server's main jars, bound to 127.0.0.1 on free ports, its logs in a temporary directory, with
 * short group timeouts. {@link #main} runs one in a JVM of its own for {@link KraftBrokerProcess}.
 */
public final class KraftBroker implements AutoCloseable {
  private final KafkaRaftServer server;
  private final Path logDir;
  private final String bootstrapServers;

  private KraftBroker(KafkaRaftServer server, Path logDir, String bootstrapServers) {
    this.server = server;
    this.logDir = logDir;
    this.bootstrapServers = bootstrapServers;
  }

  public static KraftBroker start() throws Exception {
    int port = freePort();
    int controllerPort = freePort();
    Path logDir = Files.createTempDirectory("idempotent-kraft");
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("num.partitions", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("group.min.session.timeout.ms", "1000");
    p.put("group.consumer.min.session.timeout.ms", "1000");
    p.put("group.consumer.min.heartbeat.interval.ms", "500");
    p.put("log.flush.interval.messages", "1");
    KafkaConfig config = KafkaConfig.fromProps(p, false);
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setClusterId(Uuid.randomUuid().toString())
        .setNodeId(1)
        .setDirectories(List.of(logDir.toString()))
        .setMetadataLogDirectory(logDir.toString())
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
        .run();
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    return new KraftBroker(server, logDir, "127.0.0.1:" + port);
  }

  /**
   * Starts a broker, prints {@code bootstrap=<host:port>} on standard output and runs until
   * standard input ends (the parent closed it, or died).
   */
  public static void main(String[] args) throws Exception {
    try (KraftBroker broker = start()) {
      System.out.println(KraftBrokerProcess.READY_PREFIX + broker.bootstrapServers());
      System.out.flush();
      while (System.in.read() >= 0) {
        // the parent holds the pipe open while it needs the broker
      }
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public void close() throws IOException {
    server.shutdown();
    server.awaitShutdown();
    try (Stream<Path> files = Files.walk(logDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
