package dev.idempotent.web;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The conformance application ({@code HttpConformanceSuite} describes its routes) as a servlet,
 * with the servlet-only routes: an error sent through the container, and asynchronous requests.
 */
final class TestApp extends HttpServlet {
  private static final long serialVersionUID = 1L;

  final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  int runs(String route) {
    AtomicInteger n = runs.get(route);
    return n == null ? 0 : n.get();
  }

  private int count(String route) {
    return runs.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res)
      throws ServletException, IOException {
    String path = req.getRequestURI();
    String route = path.replaceAll("^/[^/]+", "");
    String scene = path.substring(0, path.length() - route.length());
    if (req.getMethod().equals("GET") && route.equals("/form")) {
      String token = IdempotencyFilter.of(req).issueSubmitToken(req, req.getParameter("path"));
      res.setContentType("text/plain");
      res.getWriter().print(token);
      return;
    }
    if (req.getDispatcherType() == DispatcherType.ASYNC) {
      res.setContentType("text/plain");
      res.getWriter().print("dispatched run " + req.getAttribute("run"));
      return;
    }
    sleep(req.getParameter("ms"));
    switch (route.replaceAll("^(/[^/]*).*$", "$1")) {
      case "/orders" -> {
        byte[] body = req.getInputStream().readAllBytes();
        int n = count(path);
        res.setStatus(201);
        res.setHeader("Location", "/orders/" + n + "?x=%20y");
        res.setHeader("X-Trace", "run-" + n);
        res.addHeader("Link", "</orders>; rel=\"collection\"");
        res.addHeader("link", "</orders/" + n + "/items>; rel=\"items\"");
        res.addCookie(new Cookie("seen", Integer.toString(n)));
        res.setContentType("application/octet-stream");
        OutputStream out = res.getOutputStream();
        for (int i = 0; i < 256; i++) {
          out.write(i);
        }
        out.write(n);
        out.write(body);
        res.flushBuffer();
        out.write(0xFF);
      }
      case "/text" -> {
        int n = count(path);
        res.setContentType("text/plain;charset=UTF-8");
        PrintWriter w = res.getWriter();
        w.print("zażółć ");
        w.flush();
        res.flushBuffer();
        w.print("run " + n);
      }
      case "/status" -> {
        int n = count(path);
        res.setStatus(Integer.parseInt(req.getParameter("code")));
        res.setContentType("text/plain");
        res.getWriter().print("status run " + n);
      }
      case "/throw" -> {
        count(path);
        throw new ServletException("the application failed");
      }
      case "/big" -> {
        int n = count(path);
        res.setContentType("application/octet-stream");
        byte[] chunk = new byte[4096];
        java.util.Arrays.fill(chunk, (byte) n);
        int total = Integer.parseInt(req.getParameter("bytes"));
        for (int written = 0; written < total; written += chunk.length) {
          res.getOutputStream().write(chunk, 0, Math.min(chunk.length, total - written));
        }
      }
      case "/async-dispatch" -> {
        int n = count(path);
        AsyncContext async = req.startAsync();
        async.start(
            () -> {
              sleep(req.getParameter("hold"));
              req.setAttribute("run", n);
              async.dispatch();
            });
      }
      case "/async-complete" -> {
        int n = count(path);
        AsyncContext async = req.startAsync();
        async.start(
            () -> {
              sleep(req.getParameter("hold"));
              try {
                async.getResponse().setContentType("text/plain");
                async.getResponse().getWriter().print("completed run " + n);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              async.complete();
            });
      }
      case "/async-status" -> {
        int n = count(path);
        AsyncContext async = req.startAsync();
        async.start(
            () -> {
              HttpServletResponse r = (HttpServletResponse) async.getResponse();
              r.setStatus(Integer.parseInt(req.getParameter("code")));
              try {
                r.getWriter().print("async status run " + n);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              async.complete();
            });
      }
      case "/async-timeout" -> {
        count(path);
        req.startAsync().setTimeout(300);
      }
      case "/missing" -> {
        count(path);
        res.sendError(404);
      }
      case "/error-page" -> {
        int n = count(path);
        res.setContentType("text/plain");
        res.getWriter().print("error page " + n);
      }
      case "/redirect" -> {
        int n = count(path);
        res.sendRedirect("/done/" + n, 303);
      }
      case "/submit" -> {
        String qty = req.getParameter("qty");
        if (qty == null || !qty.matches("[1-9][0-9]*")) {
          res.setStatus(422);
          res.setContentType("text/plain");
          res.getWriter().print("quantity must be a positive number");
          return;
        }
        int n = count(path);
        res.setStatus(303);
        res.setHeader(
            "Location",
            scene
                + "/orders/"
                + n
                + "?qty="
                + qty
                + "&note="
                + java.net.URLEncoder.encode(
                    String.valueOf(req.getParameter("note")), StandardCharsets.UTF_8));
      }
      default -> {
        int n = count(path);
        sleep(req.getParameter("hold"));
        res.setContentType("text/plain");
        res.getWriter().print("ran " + n);
      }
    }
  }

  private static void sleep(String ms) {
    if (ms != null) {
      try {
        Thread.sleep(Long.parseLong(ms));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Makes the {@code X-Test-User} header the request's principal, as an authentication filter
   * would.
   */
  static final class TestAuthentication implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest http = (HttpServletRequest) req;
      String user = http.getHeader("X-Test-User");
      if (user == null) {
        chain.doFilter(req, res);
        return;
      }
      Principal principal = () -> user;
      chain.doFilter(
          new HttpServletRequestWrapper(http) {
            @Override
            public Principal getUserPrincipal() {
              return principal;
            }

            @Override
            public String getRemoteUser() {
              return user;
            }
          },
          res);
    }
  }
}
