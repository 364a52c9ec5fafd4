package dev.idempotent.examples;

import dev.idempotent.http.IdempotencyRule;
import dev.idempotent.web.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The HTML side of the demo: {@code GET /} renders the order form with a fresh submit token, {@code
 * POST /orders} places the order and answers {@code 303 See Other} to {@code GET /orders/{id}}
 * (post/redirect/get, so a reload never posts again), {@code GET /orders} lists the orders. The
 * idempotency filter in front of it makes a repeated submit of one token get the first answer: the
 * same 303, to the same order.
 */
final class OrderFormServlet extends HttpServlet {
  /** The path the form posts to, for which its submit tokens are issued. */
  static final String SCENE = "/orders";

  /** The form field the submit token travels in. */
  static final String TOKEN_FIELD = IdempotencyRule.DEFAULT_SUBMIT_TOKEN_FIELD;

  /**
   * How long placing an order takes: long enough that a double-click's second submit arrives
   * meanwhile.
   */
  static final Duration PLACING = Duration.ofMillis(300);

  private final OrderBook orders;
  private final OrderWebApp.SubmitCounter submits;

  OrderFormServlet(OrderBook orders, OrderWebApp.SubmitCounter submits) {
    this.orders = orders;
    this.submits = submits;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String path = path(req);
    if (path.equals("/")) {
      IdempotencyFilter filter = IdempotencyFilter.of(req);
      // A fresh token per rendering, bound to this browser's session; the filter checks it on POST
      // /orders.
      String token = filter.issueSubmitToken(req, SCENE);
      html(resp, 200, OrderPages.form(OrderPages.Form.empty(), TOKEN_FIELD, token));
    } else if (path.equals("/orders")) {
      html(resp, 200, OrderPages.list(orders.all(), submits.count()));
    } else if (path.startsWith("/orders/")) {
      Optional<OrderReceipt> order = orders.find(path.substring("/orders/".length()));
      if (order.isPresent()) {
        html(resp, 200, OrderPages.order(order.get()));
      } else {
        html(resp, 404, OrderPages.notFound("There is no such order."));
      }
    } else {
      html(resp, 404, OrderPages.notFound("There is no page " + path + "."));
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!path(req).equals("/orders")) {
      html(resp, 404, OrderPages.notFound("Forms post to /orders."));
      return;
    }
    OrderPages.Form form =
        new OrderPages.Form(
            param(req, "item"), param(req, "quantity"), param(req, "email"), List.of());
    List<String> errors = validate(form);
    if (!errors.isEmpty()) {
      // The same token goes back into the form: a failed submit does not use it up, the corrected
      // one can.
      OrderPages.Form shown =
          new OrderPages.Form(form.item(), form.quantity(), form.email(), errors);
      html(resp, 422, OrderPages.form(shown, TOKEN_FIELD, param(req, TOKEN_FIELD)));
      return;
    }
    OrderReceipt order =
        orders.place(
            new OrderRequest(form.email(), form.item(), Integer.parseInt(form.quantity())),
            PLACING);
    resp.setStatus(HttpServletResponse.SC_SEE_OTHER);
    resp.setHeader("Location", "/orders/" + order.orderId());
  }

  /** What is wrong with the submitted form, one message per field; empty when it can be placed. */
  static List<String> validate(OrderPages.Form form) {
    List<String> errors = new ArrayList<>();
    if (!OrderPages.ITEMS.contains(form.item())) {
      errors.add("Item must be one of " + String.join(", ", OrderPages.ITEMS) + ".");
    }
    if (!form.quantity().matches("[0-9]{1,2}") || Integer.parseInt(form.quantity()) < 1) {
      errors.add("Quantity must be a whole number from 1 to 99.");
    }
    if (!form.email().matches("[^@\\s]+@[^@\\s]+")) {
      errors.add("Email must look like name@example.com.");
    }
    return errors;
  }

  private static String path(HttpServletRequest req) {
    String path = req.getRequestURI().substring(req.getContextPath().length());
    return path.isEmpty() ? "/" : path;
  }

  private static String param(HttpServletRequest req, String name) {
    String v = req.getParameter(name);
    return v == null ? "" : v.trim();
  }

  private static void html(HttpServletResponse resp, int status, String page) throws IOException {
    byte[] bytes = page.getBytes(StandardCharsets.UTF_8);
    resp.setStatus(status);
    resp.setContentType("text/html;charset=utf-8");
    resp.setContentLength(bytes.length);
    resp.getOutputStream().write(bytes);
  }
}
