package dev.idempotent.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.redisson.RedissonIdempotencyStore;
import dev.idempotent.spi.IdempotencyRecord;
import dev.idempotent.spi.RecordKey;
import dev.idempotent.spi.RecordStatus;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * With a {@code RedissonClient} bean in the application, the records are kept in Redis through that
 * client.
 */
@SpringBootTest(
    classes = {TestApplication.class, RedissonClientBeanTest.RedisClient.class},
    properties = "idempotent.redisson.key-prefix=it-boot:")
@DirtiesContext
class RedissonClientBeanTest {
  @Autowired Orders orders;
  @Autowired RedissonClient redisson;

  @BeforeAll
  static void services() {
    TestServices.redis();
    TestServices.postgres();
  }

  @Test
  void anIdempotentTransactionalMethodKeepsItsRecordInRedis() {
    assertThat(Idempotency.global().config().defaultStore())
        .isInstanceOf(RedissonIdempotencyStore.class);
    String id = UUID.randomUUID().toString();
    int before = orders.executions();
    orders.place(id, 4);
    orders.place(id, 4);
    assertThat(orders.executions() - before).isEqualTo(1);
    assertThat(orders.rows(id)).isEqualTo(1);
    assertThat(Idempotency.global().config().defaultStore().read(RecordKey.of("orders", id)))
        .map(IdempotencyRecord::status)
        .contains(RecordStatus.COMPLETED);
    assertThat(redisson.getKeys().getKeysByPattern("it-boot:*")).isNotEmpty();
  }

  @TestConfiguration(proxyBeanMethods = false)
  static class RedisClient {
    @Bean(destroyMethod = "shutdown")
    RedissonClient redissonClient() {
      Config config = new Config();
      config.useSingleServer().setAddress(TestServices.redis());
      return Redisson.create(config);
    }
  }
}
