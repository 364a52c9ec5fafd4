package dev.idempotent.examples.kotlin

import dev.idempotent.Idempotency
import dev.idempotent.IdempotencyConfig
import dev.idempotent.redisson.RedissonIdempotencyStore
import java.util.UUID
import java.util.concurrent.Executors
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.redisson.Redisson
import org.redisson.api.RedissonClient
import org.redisson.config.Config

/**
 * The suspend functions on the Redis store ({@code IDEMPOTENT_REDIS_URL}, else 127.0.0.1:6379): its
 * claims are answered on Redisson's threads, so the body is handed to the caller's dispatcher.
 */
@Timeout(60)
class RedisPaymentTest {
  private lateinit var redisson: RedissonClient
  private val service = PaymentService()
  private val run = UUID.randomUUID().toString()

  @BeforeEach
  fun install() {
    val config = Config()
    config.useSingleServer().address = System.getenv("IDEMPOTENT_REDIS_URL") ?: "redis://127.0.0.1:6379"
    redisson = Redisson.create(config)
    Idempotency.install(IdempotencyConfig.builder().defaultStore(RedissonIdempotencyStore.builder(redisson).build()).build())
  }

  @AfterEach
  fun reset() {
    Idempotency.reset()
    redisson.shutdown()
  }

  @Test
  fun sixteenCoroutinesOnOneThreadRunTheBodyOnceAndARepeatReplays() {
    Executors.newSingleThreadExecutor { r -> Thread(r, "caller") }.asCoroutineDispatcher().use { single ->
      val receipts = runBlocking(single) { (1..16).map { async { service.pay("$run-a", 300) } }.awaitAll() }
      assertThat(receipts.toSet()).hasSize(1)
      assertThat(runBlocking(single) { service.pay("$run-a", 300) }).isEqualTo(receipts[0])
      assertThat(service.runs.get()).isEqualTo(1)
    }
  }

  @Test
  fun theBodyRunsOnTheCallersDispatcherNotOnAStoreThread() {
    Executors.newSingleThreadExecutor { r -> Thread(r, "caller") }.asCoroutineDispatcher().use { single ->
      val first = runBlocking(single) { service.payNow("$run-b", 5) }
      assertThat(service.lastThread).startsWith("caller")
      assertThat(runBlocking(single) { service.payNow("$run-b", 5) }).isEqualTo(first)
      assertThat(service.runs.get()).isEqualTo(1)
    }
  }
}
