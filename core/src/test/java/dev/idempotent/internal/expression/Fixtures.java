package dev.idempotent.internal.expression;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Argument types for the expression tests: beans, records, fields, non-public implementations. */
final class Fixtures {
  private Fixtures() {}

  /** A plain public bean. */
  public static final class Customer {
    private final String name;
    private final boolean vip;
    private final Address address;

    public Customer(String name, boolean vip, Address address) {
      this.name = name;
      this.vip = vip;
      this.address = address;
    }

    public String getName() {
      return name;
    }

    public boolean isVip() {
      return vip;
    }

    public Address getAddress() {
      return address;
    }
  }

  /** A public record. */
  public record Address(String city, int zip) {}

  /** A bean with a public field, a boxed Boolean getter and a method that is not a getter. */
  public static final class Order {
    public final long id;
    public String note;
    private final Customer customer;
    private final List<String> items;
    private final Map<String, Object> attributes;
    private final Boolean paid;
    private final int[] quantities;
    private final Optional<String> coupon;

    public Order(
        long id,
        Customer customer,
        List<String> items,
        Map<String, Object> attributes,
        Boolean paid,
        int[] quantities,
        Optional<String> coupon) {
      this.id = id;
      this.customer = customer;
      this.items = items;
      this.attributes = attributes;
      this.paid = paid;
      this.quantities = quantities;
      this.coupon = coupon;
    }

    public Customer getCustomer() {
      return customer;
    }

    public List<String> getItems() {
      return items;
    }

    public Map<String, Object> getAttributes() {
      return attributes;
    }

    public Boolean isPaid() {
      return paid;
    }

    public int[] getQuantities() {
      return quantities;
    }

    public Optional<String> getCoupon() {
      return coupon;
    }

    public String summary() {
      return id + "/" + items.size();
    }

    public void touch() {}

    public static String version() {
      return "1";
    }

    @Override
    public String toString() {
      return "Order#" + id;
    }
  }

  /** Several ways to be called "code": the getter wins over isCode, code() and the field. */
  public static final class Precedence {
    public String code = "field";

    public String getCode() {
      return "getter";
    }

    public String code() {
      return "accessor";
    }

    public boolean isFlag() {
      return true;
    }

    public String flag() {
      return "accessor";
    }

    public String label() {
      return "accessor";
    }

    public String label = "field";

    public String only = "field";
  }

  /** A public interface implemented by non-public classes below. */
  public interface Named {
    String getName();
  }

  /** Private: reached through the public {@link Named} declaration. */
  private static final class HiddenNamed implements Named {
    private final String name;

    HiddenNamed(String name) {
      this.name = name;
    }

    @Override
    public String getName() {
      return name;
    }
  }

  /** Package-private, implementing the same interface, with an extra getter only it declares. */
  static final class OtherNamed implements Named {
    @Override
    public String getName() {
      return "other";
    }

    public String getSecret() {
      return "secret";
    }
  }

  /** A private record: its accessors are only reachable through a private lookup. */
  private record Line(String sku, int count) {}

  /** A private class with only a public field. */
  private static final class Holder {
    public final String value;

    Holder(String value) {
      this.value = value;
    }
  }

  /** A linked chain for deep navigation. */
  public static final class Link {
    private final int depth;
    private final Link next;

    public Link(int depth, Link next) {
      this.depth = depth;
      this.next = next;
    }

    public int getDepth() {
      return depth;
    }

    public Link getNext() {
      return next;
    }

    public static Link chain(int length) {
      Link link = null;
      for (int i = length - 1; i >= 0; i--) {
        link = new Link(i, link);
      }
      return link;
    }
  }

  /** A getter that throws. */
  public static final class Failing {
    public String getBroken() {
      throw new IllegalStateException("broken on purpose");
    }

    public String getChecked() throws Exception {
      throw new java.io.IOException("checked on purpose");
    }
  }

  static Named hiddenNamed(String name) {
    return new HiddenNamed(name);
  }

  static Object line(String sku, int count) {
    return new Line(sku, count);
  }

  static Object holder(String value) {
    return new Holder(value);
  }

  static Order order(long id) {
    return new Order(
        id,
        new Customer("Ada", true, new Address("Paris", 75001)),
        List.of("apple", "pear"),
        Map.of("channel", "web", "priority", 3),
        Boolean.TRUE,
        new int[] {4, 5},
        Optional.of("SPRING"));
  }
}
