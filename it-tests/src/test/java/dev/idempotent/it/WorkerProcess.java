package dev.idempotent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LedgerWorker} JVM started by a test: the same java binary and class path as the test's
 * JVM; its standard output lines are queued for {@link #awaitLine}, its standard error goes to a
 * log file.
 */
final class WorkerProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private WorkerProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "worker-stdout-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  static WorkerProcess start(Path dir, String name, String... args) throws IOException {
    return start(dir, name, LedgerWorker.class, args);
  }

  /** A JVM running {@code main}'s main method with {@code worker=NAME} and {@code args}. */
  static WorkerProcess start(Path dir, String name, Class<?> main, String... args)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.net.preferIPv4Stack=true",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName(),
                "worker=" + name));
    cmd.addAll(List.of(args));
    Files.createDirectories(dir);
    Path log = dir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(log.toFile())).start();
    return new WorkerProcess(name, p, log);
  }

  String name() {
    return name;
  }

  /** The next output line that starts with {@code prefix}, waiting at most {@code seconds}. */
  String awaitLine(String prefix, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      long left = deadline - System.nanoTime();
      String line =
          lines.poll(
              Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200))),
              TimeUnit.NANOSECONDS);
      if (line != null && line.startsWith(prefix)) {
        return line;
      }
      if (line == null && !process.isAlive() && lines.isEmpty()) {
        throw new AssertionError(
            "worker "
                + name
                + " exited with "
                + process.exitValue()
                + " before printing '"
                + prefix
                + "'; its log:\n"
                + logTail());
      }
      if (left <= 0) {
        throw new AssertionError(
            "worker "
                + name
                + " did not print '"
                + prefix
                + "' within "
                + seconds
                + " s; its log:\n"
                + logTail());
      }
    }
  }

  void send(String line) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Kills the JVM at once (SIGKILL) and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("worker " + name + " still alive 10 s after SIGKILL");
    }
  }

  int awaitExit(long seconds) throws InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      throw new AssertionError(
          "worker " + name + " did not exit within " + seconds + " s; its log:\n" + logTail());
    }
    return process.exitValue();
  }

  String logTail() {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
