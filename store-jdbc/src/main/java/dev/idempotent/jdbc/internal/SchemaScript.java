package dev.idempotent.jdbc.internal;

import dev.idempotent.jdbc.JdbcDialect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The DDL shipped for each dialect ({@link JdbcDialect#schemaResource()}), for any table name;
 * {@link SchemaCreation} runs it.
 */
public final class SchemaScript {
  /** The table name the shipped DDL is written for. */
  static final String DEFAULT_TABLE = "idempotency_record";

  private SchemaScript() {}

  /**
   * The statements of the dialect's DDL, without comments, for {@code table}: the table itself may
   * be schema-qualified, the names of its constraints and indexes start with its simple name, and
   * the tables next to it ({@code _scope}, {@code _meta}) are in the same schema.
   */
  public static List<String> statements(JdbcDialect dialect, String table) {
    return script(dialect.schemaResource(), table);
  }

  private static List<String> script(String resource, String table) {
    String text;
    try (InputStream in = SchemaScript.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "missing resource " + resource + " in idempotent-store-jdbc");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n")) {
      if (!line.strip().startsWith("--")) {
        body.append(line).append('\n');
      }
    }
    String simpleName = table.substring(table.lastIndexOf('.') + 1);
    String qualified = "\u0000";
    String ddl =
        body.toString()
            // the tables next to the record table, in its schema
            .replaceAll("\\b" + DEFAULT_TABLE + "(_scope|_meta)\\b", qualified + "$1")
            // constraint and index names, unqualified
            .replaceAll("\\b" + DEFAULT_TABLE + "(_[a-z_]+)\\b", simpleName + "$1")
            .replaceAll("\\b" + DEFAULT_TABLE + "\\b", table)
            .replace(qualified, table);
    List<String> statements = new ArrayList<>();
    for (String s : ddl.split(";")) {
      if (!s.isBlank()) {
        statements.add(s.strip());
      }
    }
    return statements;
  }
}
