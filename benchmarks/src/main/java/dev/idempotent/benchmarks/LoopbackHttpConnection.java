package dev.idempotent.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 keep-alive connection of {@link HttpCostRun}'s load generator: it sends a JSON POST
 * with an {@code Idempotency-Key} and reads the whole answer (status, the headers it checks, a body
 * of {@code Content-Length} or chunked), one request at a time. Far lighter than a general client,
 * so that the load generator, which shares the machine with the server, takes little of it.
 */
final class LoopbackHttpConnection implements AutoCloseable {
  /** What {@link HttpCostRun} checks of an answer. */
  record Answer(int status, boolean replayed, String location, int bodyLength, int firstByte) {}

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;
  private final String host;
  private final byte[] line = new byte[8192];
  private final byte[] discard = new byte[8192];

  LoopbackHttpConnection(int port) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(30_000);
    out = socket.getOutputStream();
    in = new BufferedInputStream(socket.getInputStream(), 16384);
    host = "127.0.0.1:" + port;
  }

  /** Sends a POST of {@code body} to {@code path} with {@code key} and reads the answer. */
  Answer post(String path, String key, byte[] body) throws IOException {
    byte[] head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + "\r\nContent-Type: application/json\r\nIdempotency-Key: "
                + key
                + "\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] request = new byte[head.length + body.length];
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(body, 0, request, head.length, body.length);
    out.write(request);
    out.flush();
    return read();
  }

  private Answer read() throws IOException {
    int length = readLine();
    if (length < 12 || line[0] != 'H' || line[8] != ' ') {
      throw new IOException("not an HTTP status line: " + text(length));
    }
    int status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    long contentLength = -1;
    boolean chunked = false;
    boolean replayed = false;
    boolean close = false;
    String location = null;
    for (int n; (n = readLine()) > 0; ) {
      String header = text(n);
      int colon = header.indexOf(':');
      if (colon < 0) {
        throw new IOException("not an HTTP header: " + header);
      }
      String name = header.substring(0, colon).trim();
      String value = header.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        contentLength = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
        chunked = value.equalsIgnoreCase("chunked");
      } else if (name.equalsIgnoreCase("Idempotent-Replayed")) {
        replayed = value.equalsIgnoreCase("true");
      } else if (name.equalsIgnoreCase("Location")) {
        location = value;
      } else if (name.equalsIgnoreCase("Connection")) {
        close = value.equalsIgnoreCase("close");
      }
    }
    int[] first = {-1};
    long bodyLength;
    if (chunked) {
      bodyLength = 0;
      for (long size; (size = Long.parseLong(text(readLine()).split(";")[0].trim(), 16)) > 0; ) {
        bodyLength += skip(size, first);
        readLine();
      }
      while (readLine() > 0) {
        // trailers
      }
    } else if (contentLength >= 0) {
      bodyLength = skip(contentLength, first);
    } else {
      throw new IOException(
          "an answer (status " + status + ") without Content-Length or chunked encoding");
    }
    if (close) {
      throw new IOException("the server closed the connection after a " + status + " answer");
    }
    return new Answer(status, replayed, location, (int) bodyLength, first[0]);
  }

  private long skip(long count, int[] first) throws IOException {
    long left = count;
    while (left > 0) {
      int n = in.read(discard, 0, (int) Math.min(discard.length, left));
      if (n < 0) {
        throw new IOException("the connection ended inside a body");
      }
      if (first[0] < 0 && n > 0) {
        first[0] = discard[0] & 0xFF;
      }
      left -= n;
    }
    return count;
  }

  /** Reads one line without its CR LF into {@link #line}; returns its length. */
  private int readLine() throws IOException {
    int n = 0;
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) {
        throw new IOException("the server closed the connection");
      }
      if (n == line.length) {
        throw new IOException("a header line longer than " + line.length + " bytes");
      }
      line[n++] = (byte) b;
    }
    return n > 0 && line[n - 1] == '\r' ? n - 1 : n;
  }

  private String text(int length) {
    return new String(line, 0, length, StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
