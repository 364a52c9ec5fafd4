package dev.idempotent.redisson;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} owned by a test: bound to 127.0.0.1 on a free port, in its own temporary
 * directory, no persistence unless asked ({@code --appendonly yes --appendfsync always} keeps
 * records across a restart). It can be stopped and started again on the same port, or paused. Every
 * wait is bounded. Shared with the {@code it-tests} module through this module's test jar.
 */
public final class RedisServerProcess implements AutoCloseable {
  private static final Random PORTS = new Random();

  private final Path dir;
  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private RedisServerProcess(Path dir, int port, List<String> extraArgs) {
    this.dir = dir;
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /**
   * Starts a server with {@code extraArgs} (for example {@code --requirepass x}) and waits until it
   * answers.
   */
  public static RedisServerProcess launch(String... extraArgs)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("idem-redis-");
    RedisServerProcess server = new RedisServerProcess(dir, freePort(), List.of(extraArgs));
    server.start();
    return server;
  }

  public int port() {
    return port;
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  public String url() {
    return "redis://" + address();
  }

  /** Starts (again) on the same port and waits up to 10 s until it answers. */
  public void start() throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      return;
    }
    List<String> cmd =
        new ArrayList<>(
            List.of(
                RedisTestEnvironment.redisServer().toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--daemonize",
                "no",
                "--dir",
                dir.toString(),
                "--protected-mode",
                "no"));
    if (!extraArgs.contains("--appendonly")) {
      cmd.addAll(List.of("--appendonly", "no"));
    }
    cmd.addAll(extraArgs);
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!answers()) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server on port " + port + " exited: " + log());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "redis-server on port " + port + " did not answer within 10s: " + log());
      }
      Thread.sleep(20);
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits until it is gone. */
  public void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    try {
      resume(); // a paused server ignores SIGTERM until it runs again
    } catch (IOException | RuntimeException e) {
      // it is killed forcibly below if need be
    }
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Freezes the server (SIGSTOP): connections stay open but nothing answers, as with a hung host.
   */
  public void pause() throws IOException, InterruptedException {
    signal("-STOP");
  }

  /** Lets a paused server run again (SIGCONT). */
  public void resume() throws IOException, InterruptedException {
    signal("-CONT");
  }

  private void signal(String signal) throws IOException, InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    Process kill =
        new ProcessBuilder("kill", signal, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
    }
  }

  /** Runs {@code redis-cli -p port args...} and returns its output (bounded by 20 s). */
  public String cli(String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                RedisTestEnvironment.redisCli().toString(),
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(port)));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out;
    try (InputStream in = p.getInputStream()) {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("redis-cli " + args[0] + " did not finish within 20 s");
      }
      out = in.readAllBytes();
    }
    return new String(out, StandardCharsets.UTF_8);
  }

  /**
   * How many times the server ran {@code command} (lower case, for example {@code spublish}) since
   * it started or {@code CONFIG RESETSTAT}, from {@code INFO commandstats}; commands that scripts
   * run are counted too.
   */
  public long commandCalls(String command) throws IOException, InterruptedException {
    String prefix = "cmdstat_" + command + ":calls=";
    for (String line : cli("INFO", "commandstats").split("\\R")) {
      if (line.startsWith(prefix)) {
        String rest = line.substring(prefix.length());
        return Long.parseLong(rest.substring(0, rest.indexOf(',')));
      }
    }
    return 0;
  }

  /** Sends PING over a raw socket; true on any Redis answer (also an authentication error). */
  public boolean answers() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      s.setSoTimeout(500);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      int first = s.getInputStream().read();
      return first == '+' || first == '-';
    } catch (IOException e) {
      return false;
    }
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("server.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }

  /** A port that is free on 127.0.0.1, and whose cluster bus port (port + 10000) is free too. */
  static synchronized int freePort() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20000 + PORTS.nextInt(10000);
      if (free(port) && free(port + 10000)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no free port pair in 20000-40000 on 127.0.0.1 after 200 attempts");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
