package dev.idempotent.examples;

import java.util.List;

/**
 * The demo's HTML: the order form, an order's page and the list. Plain strings, every value
 * escaped.
 */
final class OrderPages {
  static final List<String> ITEMS = List.of("book", "lamp", "desk", "chair");

  private static final String STYLE =
      """
      body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2933;
      margin:0;padding:48px 16px}
      main{max-width:440px;margin:0 auto;background:#fff;border-radius:10px;padding:28px 32px;
      box-shadow:0 1px 3px rgba(0,0,0,.12)}
      h1{font-size:1.45rem;margin:0 0 4px}p.lead{color:#52606d;margin:0 0 22px}
      label{display:block;font-weight:600;margin:14px 0 6px}
      input,select{width:100%;box-sizing:border-box;padding:9px 10px;font-size:1rem;border:1px solid #cbd2d9;
      border-radius:6px}
      input.invalid{border-color:#d64545;background:#fff5f5}
      button{margin-top:22px;width:100%;padding:11px;font-size:1rem;font-weight:600;color:#fff;background:#2f6fdf;
      border:0;border-radius:6px;cursor:pointer}
      button:disabled{background:#9aa5b1;cursor:wait}
      .error{background:#fde8e8;color:#a61b1b;border-radius:6px;padding:10px 12px;margin:0 0 10px}
      .ok{background:#e3f9e5;color:#14532d;border-radius:6px;padding:12px 14px;margin:0 0 18px;font-weight:600}
      dl{display:grid;grid-template-columns:max-content 1fr;gap:8px 18px;margin:0 0 20px}dt{color:#52606d}
      dd{margin:0;font-weight:600}table{width:100%;border-collapse:collapse}
      th,td{text-align:left;padding:6px 4px;border-bottom:1px solid #e4e7eb}
      small{color:#7b8794}a{color:#2f6fdf}
      """;

  private OrderPages() {}

  /** What the form shows: the values typed so far and, after a failed submit, what was wrong. */
  record Form(String item, String quantity, String email, List<String> errors) {
    static Form empty() {
      return new Form("book", "1", "", List.of());
    }
  }

  static String form(Form form, String tokenField, String token) {
    StringBuilder errors = new StringBuilder();
    for (String e : form.errors()) {
      errors.append("<p class=\"error\" role=\"alert\">").append(escape(e)).append("</p>\n");
    }
    StringBuilder options = new StringBuilder();
    for (String item : ITEMS) {
      options
          .append("<option value=\"")
          .append(item)
          .append('"')
          .append(item.equals(form.item()) ? " selected" : "")
          .append('>')
          .append(item)
          .append("</option>");
    }
    boolean badQuantity = form.errors().stream().anyMatch(e -> e.startsWith("Quantity"));
    boolean badEmail = form.errors().stream().anyMatch(e -> e.startsWith("Email"));
    // The form validates on the server only (novalidate), so the demo shows a failed submit keeping
    // its token.
    return page(
        "Place an order",
        """
        <h1>Place an order</h1>
        <p class="lead">Double-click, reload or go back: the order is placed once.</p>
        %s<form id="order" method="post" action="/orders" novalidate onsubmit="return lockSubmit(this)">
        <input type="hidden" name="%s" value="%s">
        <label for="item">Item</label><select id="item" name="item">%s</select>
        <label for="quantity">Quantity (1 to 99)</label>
        <input id="quantity" name="quantity" inputmode="numeric" value="%s"%s>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" value="%s" placeholder="you@example.com"%s>
        <button id="place-order" type="submit">Place order</button>
        </form>
        <p><small><a href="/orders">All orders</a></small></p>
        <script>
        function lockSubmit(form) {
          var button = form.querySelector("button");
          button.disabled = true;
          button.textContent = "Placing order\\u2026";
          return true;
        }
        // A page restored by the back button comes back with its button locked: unlock it.
        window.addEventListener("pageshow", function () {
          var button = document.getElementById("place-order");
          button.disabled = false;
          button.textContent = "Place order";
        });
        </script>
        """
            .formatted(
                errors,
                escape(tokenField),
                escape(token),
                options,
                escape(form.quantity()),
                badQuantity ? " class=\"invalid\"" : "",
                escape(form.email()),
                badEmail ? " class=\"invalid\"" : ""));
  }

  static String order(OrderReceipt order) {
    return page(
        "Order " + order.orderId(),
        """
        <h1>Order %s</h1>
        <p class="ok">Thank you, your order is placed.</p>
        <dl><dt>Item</dt><dd>%s</dd><dt>Quantity</dt><dd>%d</dd><dt>Email</dt><dd>%s</dd></dl>
        <p><a href="/">Place another order</a> &middot; <a href="/orders">All orders</a></p>
        """
            .formatted(
                escape(order.orderId()),
                escape(order.sku()),
                order.quantity(),
                escape(order.customerId())));
  }

  static String list(List<OrderReceipt> orders, long submits) {
    StringBuilder rows = new StringBuilder();
    for (OrderReceipt o : orders) {
      rows.append("<tr><td><a href=\"/orders/")
          .append(escape(o.orderId()))
          .append("\">")
          .append(escape(o.orderId()))
          .append("</a></td><td>")
          .append(escape(o.sku()))
          .append("</td><td>")
          .append(o.quantity())
          .append("</td><td>")
          .append(escape(o.customerId()))
          .append("</td></tr>\n");
    }
    return page(
        "Orders",
        """
        <h1>Orders</h1>
        <p class="lead"><span id="orders">%d</span> orders placed from <span id="submits">%d</span> submits.</p>
        <table><tr><th>Order</th><th>Item</th><th>Qty</th><th>Email</th></tr>
        %s</table>
        <p><a href="/">Place an order</a></p>
        """
            .formatted(orders.size(), submits, rows));
  }

  static String notFound(String what) {
    return page(
        "Not found",
        "<h1>Not found</h1><p class=\"lead\">"
            + escape(what)
            + "</p><p><a href=\"/\">Back</a></p>");
  }

  private static String page(String title, String body) {
    return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>"
        + escape(title)
        + "</title><style>"
        + STYLE
        + "</style></head>\n<body><main>\n"
        + body
        + "</main></body></html>\n";
  }

  static String escape(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
