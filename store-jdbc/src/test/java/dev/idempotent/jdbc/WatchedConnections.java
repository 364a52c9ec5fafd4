package dev.idempotent.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** A {@link DataSource} whose connections tell a test each statement prepared on them. */
final class WatchedConnections {
  /** Called with each connection as it is handed out. */
  @FunctionalInterface
  interface OnConnect {
    void connected(Connection c) throws SQLException;
  }

  /** Called with the text of each statement before it is prepared. */
  @FunctionalInterface
  interface OnPrepare {
    void preparing(String sql) throws Exception;
  }

  private WatchedConnections() {}

  static DataSource of(DataSource dataSource, OnConnect onConnect, OnPrepare onPrepare) {
    ClassLoader loader = WatchedConnections.class.getClassLoader();
    return (DataSource)
        Proxy.newProxyInstance(
            loader,
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(dataSource, method, args);
              if (!(result instanceof Connection c)) {
                return result;
              }
              onConnect.connected(c);
              return Proxy.newProxyInstance(
                  loader,
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("prepareStatement")) {
                      onPrepare.preparing((String) a[0]);
                    }
                    return invoke(c, m, a);
                  });
            });
  }

  static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
