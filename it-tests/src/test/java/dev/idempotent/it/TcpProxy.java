package dev.idempotent.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on 127.0.0.1 in front of one upstream port, for network faults: {@link #pause()}
 * stops forwarding (connections stay open, bytes wait), {@link #slow(long)} delays every chunk,
 * {@link #cut()} closes every open connection, {@link #heal()} forwards normally again. At most
 * {@value #MAX_THREADS} pump threads (two per connection); a connection beyond that is refused.
 * {@link #close()} stops everything and waits for it.
 */
final class TcpProxy implements AutoCloseable {
  static final int MAX_THREADS = 128;

  private final int upstreamPort;
  private final ServerSocket server;
  private final ExecutorService pumps =
      new ThreadPoolExecutor(
          0,
          MAX_THREADS,
          10,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "tcp-proxy-pump");
            t.setDaemon(true);
            return t;
          });
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean paused;
  private volatile long delayMillis;
  private volatile boolean closed;

  TcpProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void pause() {
    paused = true;
  }

  void slow(long millisPerChunk) {
    delayMillis = millisPerChunk;
  }

  void heal() {
    delayMillis = 0;
    paused = false;
  }

  /** Closes every open connection; new ones are accepted as before. */
  void cut() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 1000);
        sockets.add(client);
        sockets.add(upstream);
        pumps.execute(() -> pump(client, upstream));
        pumps.execute(() -> pump(upstream, client));
      } catch (IOException | RejectedExecutionException e) {
        closeQuietly(client);
        closeQuietly(upstream);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      from.setSoTimeout(100);
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (!closed) {
        if (paused) {
          Thread.sleep(10);
          continue;
        }
        int n;
        try {
          n = in.read(buffer);
        } catch (SocketTimeoutException e) {
          continue;
        }
        if (n < 0) {
          break;
        }
        long delay = delayMillis;
        if (delay > 0) {
          Thread.sleep(delay);
        }
        while (paused && !closed) {
          Thread.sleep(10);
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the connection was cut or closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    cut();
    pumps.shutdownNow();
    acceptor.join(5_000);
    if (!pumps.awaitTermination(5, TimeUnit.SECONDS)) {
      throw new IllegalStateException("proxy pump threads still running 5 s after close");
    }
  }
}
