package dev.idempotent.messaging.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link KraftBroker} in a JVM of its own, for tests whose class path holds another Kafka client
 * than the server's (Spring Boot 3.5 manages kafka-clients 3.9; the server's jars here are 4.x).
 * The child's class path is the one this module's tests run with, written at build time into {@code
 * broker-classpath.txt} beside this class; it binds to 127.0.0.1 and ends when this object is
 * closed or the parent JVM ends (its standard input closes). Uses the JDK only, so that it loads on
 * any Kafka client.
 */
public final class KraftBrokerProcess implements AutoCloseable {
  static final String READY_PREFIX = "bootstrap=";

  private final Process process;
  private final String bootstrapServers;

  private KraftBrokerProcess(Process process, String bootstrapServers) {
    this.process = process;
    this.bootstrapServers = bootstrapServers;
  }

  /** Starts the broker and waits (at most two minutes) until it accepts connections. */
  public static KraftBrokerProcess start() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(classPath());
    command.add(KraftBroker.class.getName());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<String> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(() -> readOutput(process.getInputStream(), ready), "kraft-broker-output");
    reader.setDaemon(true);
    reader.start();
    try {
      return new KraftBrokerProcess(process, ready.get(2, TimeUnit.MINUTES));
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      throw new IOException("the Kafka broker's JVM did not start: " + e.getMessage(), e);
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.getOutputStream().close(); // the broker shuts down when its input ends
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Echoes the child's lines with a prefix and completes {@code ready} with its address. */
  private static void readOutput(InputStream output, CompletableFuture<String> ready) {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.startsWith(READY_PREFIX)) {
          ready.complete(line.substring(READY_PREFIX.length()).trim());
        } else if (!ready.isDone() || line.contains("ERROR")) {
          System.out.println("[kafka broker] " + line);
        }
      }
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
    ready.completeExceptionally(new IOException("the broker's JVM ended before it was ready"));
  }

  /** The classes of this module's tests, then the dependencies they were built with. */
  private static String classPath() throws IOException {
    String own;
    try {
      own =
          Path.of(KraftBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .toString();
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    try (InputStream in = KraftBrokerProcess.class.getResourceAsStream("broker-classpath.txt")) {
      if (in == null) {
        throw new IOException(
            "broker-classpath.txt is missing beside "
                + KraftBrokerProcess.class.getName()
                + ": build messaging-kafka's tests (mvn -pl messaging-kafka test-compile)");
      }
      return own
          + File.pathSeparator
          + new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
  }
}
