package dev.idempotent.examples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * {@code POST /api/orders} with a JSON body {@code
 * {"item":"book","quantity":2,"email":"a@example.com"}}: places the order and answers {@code 201
 * Created} with the order as JSON. It knows nothing of idempotency; the filter in front of it
 * answers 400 without an {@code Idempotency-Key}, 409 while the first request with the key runs,
 * 422 for the key reused with another body, and the recorded 201 to every repeat. {@code
 * ?delayMs=N} (at most {@value #MAX_DELAY_MS}) makes placing the order take that long, so the 409
 * can be seen by hand.
 */
final class OrderApiServlet extends HttpServlet {
  static final long MAX_DELAY_MS = 5_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OrderBook orders;

  OrderApiServlet(OrderBook orders) {
    this.orders = orders;
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    JsonNode body;
    try {
      body = JSON.readTree(req.getInputStream());
    } catch (JsonProcessingException e) {
      problem(resp, "The body is not JSON: " + e.getOriginalMessage());
      return;
    }
    if (body == null || !body.isObject()) {
      problem(
          resp,
          "The body must be a JSON object like "
              + "{\"item\":\"book\",\"quantity\":2,\"email\":\"a@example.com\"}.");
      return;
    }
    OrderPages.Form form =
        new OrderPages.Form(
            body.path("item").asText(""),
            body.path("quantity").asText(""),
            body.path("email").asText(""),
            List.of());
    List<String> errors = OrderFormServlet.validate(form);
    if (!errors.isEmpty()) {
      problem(resp, String.join(" ", errors));
      return;
    }
    OrderReceipt order =
        orders.place(
            new OrderRequest(form.email(), form.item(), Integer.parseInt(form.quantity())),
            Duration.ofMillis(delayMillis(req)));
    ObjectNode out =
        JSON.createObjectNode()
            .put("id", order.orderId())
            .put("item", order.sku())
            .put("quantity", order.quantity())
            .put("email", order.customerId());
    resp.setStatus(HttpServletResponse.SC_CREATED);
    resp.setHeader("Location", "/orders/" + order.orderId());
    resp.setContentType("application/json");
    resp.getOutputStream().write(JSON.writeValueAsBytes(out));
  }

  private static long delayMillis(HttpServletRequest req) {
    String delay = req.getParameter("delayMs");
    if (delay == null || !delay.matches("[0-9]{1,9}")) {
      return 0;
    }
    return Math.min(Long.parseLong(delay), MAX_DELAY_MS);
  }

  /** A 400 in RFC 9457 form, like the filter's own answers. */
  private static void problem(HttpServletResponse resp, String detail) throws IOException {
    ObjectNode p =
        JSON.createObjectNode()
            .put("type", "about:blank")
            .put("title", "Invalid order")
            .put("status", 400)
            .put("detail", detail);
    resp.setStatus(HttpServletResponse.SC_BAD_REQUEST);
    resp.setContentType("application/problem+json");
    resp.getOutputStream().write(JSON.writeValueAsBytes(p));
  }
}
