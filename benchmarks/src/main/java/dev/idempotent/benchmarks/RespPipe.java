package dev.idempotent.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;

/**
 * A plain RESP connection for loading many keys fast and for server commands: commands are written
 * in batches and their replies read after each batch, as {@code redis-cli --pipe} does. Not
 * thread-safe.
 */
final class RespPipe implements AutoCloseable {
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private int pending;

  /** Connects to {@code redis://host:port[/db]} and selects the database. */
  RespPipe(String url) throws IOException {
    URI uri = URI.create(url);
    socket = new Socket(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort());
    socket.setTcpNoDelay(true);
    out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    String path = uri.getPath();
    if (path != null && path.length() > 1) {
      command("SELECT", path.substring(1));
    }
  }

  /**
   * Queues one command; its reply is read (and an error reply thrown) by the next {@link #sync()}.
   */
  void send(Object... args) throws IOException {
    out.write('*');
    writeNumber(args.length);
    for (Object a : args) {
      byte[] b = a instanceof byte[] bytes ? bytes : a.toString().getBytes(StandardCharsets.UTF_8);
      out.write('$');
      writeNumber(b.length);
      out.write(b);
      out.write('\r');
      out.write('\n');
    }
    pending++;
  }

  /** Sends the queued commands and reads their replies; throws on the first error reply. */
  void sync() throws IOException {
    out.flush();
    while (pending > 0) {
      pending--;
      readReply();
    }
  }

  /**
   * Sends {@code count} commands made by {@code command} while another thread reads their replies,
   * so that writing and reading overlap; throws the first error reply. Nothing may be pending.
   */
  void stream(long count, LongFunction<Object[]> command) throws Exception {
    sync();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                for (long i = 0; i < count; i++) {
                  readReply();
                }
              } catch (Exception e) {
                failure.set(e);
              }
            },
            "resp-replies");
    reader.start();
    for (long i = 0; i < count && failure.get() == null; i++) {
      send(command.apply(i));
    }
    out.flush();
    pending = 0;
    reader.join();
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  /** Runs one command and returns its reply as text (a bulk string, status or number). */
  String command(Object... args) throws IOException {
    sync();
    send(args);
    out.flush();
    pending--;
    return readReply();
  }

  private void writeNumber(long n) throws IOException {
    out.write(Long.toString(n).getBytes(StandardCharsets.US_ASCII));
    out.write('\r');
    out.write('\n');
  }

  private String readReply() throws IOException {
    int type = in.read();
    String line = readLine();
    switch (type) {
      case '+', ':' -> {
        return line;
      }
      case '-' -> throw new IOException("Redis answered: " + line);
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        byte[] b = in.readNBytes(n + 2);
        return new String(b, 0, n, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
          sb.append(readReply()).append('\n');
        }
        return sb.toString();
      }
      default -> throw new IOException("unexpected RESP reply type " + type);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(16);
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new IOException("Redis closed the connection");
      }
      b.write(c);
    }
    in.read();
    return b.toString(StandardCharsets.UTF_8);
  }

  /** A Redisson configuration of the server and database of {@code redis://host:port[/db]}. */
  static org.redisson.config.Config redissonConfig(String url, int connections) {
    URI uri = URI.create(url);
    String path = uri.getPath();
    int db = path != null && path.length() > 1 ? Integer.parseInt(path.substring(1)) : 0;
    org.redisson.config.Config config = new org.redisson.config.Config();
    config
        .useSingleServer()
        .setAddress(uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort())
        .setDatabase(db)
        .setConnectionMinimumIdleSize(connections)
        .setConnectionPoolSize(Math.max(2, connections * 2));
    return config;
  }

  /** The value of {@code field} in {@code INFO section}, as a number. */
  long info(String section, String field) throws IOException {
    String info = command("INFO", section);
    for (String line : info.split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new IOException("INFO " + section + " has no field " + field);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
