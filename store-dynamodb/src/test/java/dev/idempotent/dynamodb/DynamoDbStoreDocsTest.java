package dev.idempotent.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfig;
import dev.idempotent.IdempotencyPolicy;
import dev.idempotent.dynamodb.internal.RecordItem;
import dev.idempotent.spi.IdempotencyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * docs/stores/dynamodb.md: its builder code (the region between the markers below, which the page
 * shows; checked by the examples module's {@code DocsSnippetsTest}) runs on the test endpoint, and
 * its table definitions and attribute table name what the store reads and writes.
 */
class DynamoDbStoreDocsTest {
  private static final Path PAGE =
      Path.of("").toAbsolutePath().getParent().resolve("docs/stores/dynamodb.md");
  private static final String MARKER =
      "<!-- tested-by: store-dynamodb/src/test/java/dev/idempotent/dynamodb/"
          + "DynamoDbStoreDocsTest.java -->";

  @Test
  void theStoreOfTheDocsReplays() {
    DynamoDbClient dynamoDbClient = DynamoDbTestEnvironment.client();
    DynamoDbAsyncClient dynamoDbAsyncClient = DynamoDbTestEnvironment.asyncClient();
    // spotless:off
    // docs/stores/dynamodb.md: builder (begin)
    IdempotencyStore store = DynamoDbIdempotencyStore.builder()
        .clients(dynamoDbClient, dynamoDbAsyncClient)  // or .region(...), .endpoint(...), .credentials(...)
        .table("idempotency")                          // the default
        .createTable(true)                             // default false: a missing table is reported
        .timeout(Duration.ofSeconds(5))                // each operation, SDK retries included
        .maxClockSkew(Duration.ofSeconds(1))           // between the clocks of any two hosts
        .build();
    // docs/stores/dynamodb.md: builder (end)
    // spotless:on
    try {
      Idempotency idem =
          Idempotency.create(IdempotencyConfig.builder().defaultStore(store).build());
      IdempotencyPolicy policy =
          IdempotencyPolicy.builder("docs.dynamodb." + UUID.randomUUID())
              .resultType(Integer.class)
              .build();
      AtomicInteger runs = new AtomicInteger();
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(idem.call(policy, "k1", runs::incrementAndGet)).isEqualTo(1);
      assertThat(runs).hasValue(1);
    } finally {
      store.close();
    }
  }

  /** The blocks after the marker: the table as CLI command, CloudFormation and Terraform. */
  @Test
  void theTableDefinitionsHaveTheStoresKeyBillingAndTtl() throws IOException {
    List<String> blocks = markedBlocks();
    assertThat(blocks).as("blocks marked %s", MARKER).hasSize(3);
    for (String block : blocks) {
      assertThat(block)
          .as("table definition%n%s", block)
          .contains(RecordItem.PK, "PAY_PER_REQUEST", RecordItem.TTL)
          .containsIgnoringCase("hash")
          .containsPattern("\\bS\\b");
    }
    assertThat(blocks.get(0)).contains("aws dynamodb create-table", "update-time-to-live");
    assertThat(blocks.get(1)).contains("AWS::DynamoDB::Table", "TimeToLiveSpecification");
    assertThat(blocks.get(2)).contains("aws_dynamodb_table", "ttl {");
  }

  @Test
  void theAttributeTableListsEveryAttribute() throws IOException {
    String page = Files.readString(PAGE);
    int start = page.indexOf("## Item format");
    assertThat(start).isNotNegative();
    String section = page.substring(start, page.indexOf("\n## ", start + 1));
    for (String attribute :
        List.of(
            RecordItem.PK,
            RecordItem.FMT,
            RecordItem.STATUS,
            RecordItem.OWNER,
            RecordItem.FINGERPRINT,
            RecordItem.OUTCOME,
            RecordItem.EXPIRES_AT,
            RecordItem.TTL)) {
      assertThat(section).as("row of %s", attribute).contains("| `" + attribute + "` |");
    }
    assertThat(section).contains("version " + RecordItem.FORMAT);
  }

  private static List<String> markedBlocks() throws IOException {
    List<String> lines = Files.readAllLines(PAGE);
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).trim().equals(MARKER)) {
        StringBuilder block = new StringBuilder();
        int j = i + 2; // past the opening fence
        while (j < lines.size() && !lines.get(j).trim().startsWith("```")) {
          block.append(lines.get(j++)).append('\n');
        }
        blocks.add(block.toString());
      }
    }
    return blocks;
  }
}
