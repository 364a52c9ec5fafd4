package dev.idempotent.examples.kotlin

import dev.idempotent.Idempotency
import dev.idempotent.IdempotencyConfig
import dev.idempotent.IdempotencyConfigurationException
import dev.idempotent.IdempotencyInProgressException
import dev.idempotent.memory.CaffeineIdempotencyStore
import java.util.concurrent.Executors
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

@Timeout(60)
class PaymentServiceTest {
  private val service = PaymentService()

  @BeforeEach
  fun install() {
    Idempotency.install(IdempotencyConfig.builder().defaultStore(CaffeineIdempotencyStore.builder().build()).build())
  }

  @AfterEach
  fun reset() {
    Idempotency.reset()
  }

  @Test
  fun aRepeatReplaysTheValueWithoutRunningTheBody() = runBlocking<Unit> {
    val first = service.pay("p-1", 100)
    val second = service.pay("p-1", 100)
    assertThat(second).isEqualTo(first)
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun sixteenCoroutinesOnOneThreadWithOneKeyRunTheBodyOnceAndAllGetItsValue() {
    Executors.newSingleThreadExecutor().asCoroutineDispatcher().use { single ->
      val receipts = runBlocking(single) { (1..16).map { async { service.pay("p-2", 200) } }.awaitAll() }
      assertThat(receipts.toSet()).hasSize(1)
      assertThat(receipts[0].amount).isEqualTo(200)
      assertThat(service.runs.get()).isEqualTo(1)
    }
  }

  @Test
  fun anExceptionReleasesTheKeyAndAListedFailureReplays() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { service.pay("p-3", 0) } }.isInstanceOf(IllegalArgumentException::class.java)
    assertThatThrownBy { runBlocking { service.pay("p-3", 0) } }.isInstanceOf(IllegalArgumentException::class.java)
    assertThat(service.runs.get()).isEqualTo(2)
    assertThatThrownBy { runBlocking { service.pay("p-4", -1) } }.isInstanceOf(DeclinedException::class.java)
    assertThatThrownBy { runBlocking { service.pay("p-4", -1) } }
      .isInstanceOf(DeclinedException::class.java)
      .hasMessage("declined: -1")
    assertThat(service.runs.get()).isEqualTo(3)
  }

  @Test
  fun aCancelledCallWithOnCancelReleaseFreesTheKeyAtOnce() = runBlocking<Unit> {
    val job = launch { service.slowReleased("p-5") }
    delay(200)
    job.cancel()
    job.join()
    val retry = async { service.slowReleased("p-5") }
    delay(200)
    assertThat(service.runs.get()).isEqualTo(2)
    retry.cancel()
  }

  @Test
  fun aCancelledCallWithOnCancelKeepLeavesTheKeyInProgress() = runBlocking<Unit> {
    val job = launch { service.slowKept("p-6") }
    delay(200)
    job.cancel()
    job.join()
    assertThatThrownBy { runBlocking { service.slowKept("p-6") } }
      .isInstanceOf(IdempotencyInProgressException::class.java)
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun aCancellationExceptionReachesTheCallerUnchanged() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { withTimeout(200) { service.slowReleased("p-7") } } }
      .isInstanceOf(CancellationException::class.java)
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun withTimeoutAndOnCancelKeepLeavesTheKeyInProgressForTheRetry() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { withTimeout(200) { service.slowKept("p-8") } } }
      .isInstanceOf(CancellationException::class.java)
    assertThatThrownBy { runBlocking { withTimeout(5_000) { service.slowKept("p-8") } } }
      .isInstanceOf(IdempotencyInProgressException::class.java)
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun withTimeoutAndOnCancelReleaseLetsTheRetryRun() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { withTimeout(200) { service.slowReleased("p-9") } } }
      .isInstanceOf(CancellationException::class.java)
    assertThatThrownBy { runBlocking { withTimeout(200) { service.slowReleased("p-9") } } }
      .isInstanceOf(CancellationException::class.java)
    assertThat(service.runs.get()).isEqualTo(2)
  }

  @Test
  fun anErrorReachesTheCallerUnchangedAndReleasesTheKey() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { service.broken("p-10") } }
      .isInstanceOf(ExceptionInInitializerError::class.java)
      .hasMessage("static init failed")
    assertThatThrownBy { runBlocking { service.broken("p-10") } }
      .isInstanceOf(ExceptionInInitializerError::class.java)
    assertThat(service.runs.get()).isEqualTo(2)
  }

  @Test
  fun aWrongKeyExpressionFailsAtTheFirstCallSayingWhy() = runBlocking<Unit> {
    assertThatThrownBy { runBlocking { service.wrongKey("p-8") } }
      .isInstanceOf(IdempotencyConfigurationException::class.java)
      .hasMessageContaining("wrongKey")
      .hasMessageContaining("#order.id")
    assertThat(service.runs.get()).isEqualTo(0)
  }

  @Test
  fun aFunctionThatDoesNotSuspendIsRecordedToo() = runBlocking<Unit> {
    val first = service.payNow("p-9", 9)
    assertThat(service.payNow("p-9", 9)).isEqualTo(first)
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun aUnitFunctionRunsOnce() = runBlocking<Unit> {
    service.notify("p-10")
    withContext(kotlinx.coroutines.Dispatchers.Default) { service.notify("p-10") }
    assertThat(service.runs.get()).isEqualTo(1)
  }

  @Test
  fun theClassIsWovenByAjcAfterKotlinc() {
    assertThat(PaymentService::class.java.declaredFields.map { it.name }).anyMatch { it.startsWith("ajc\$tjp") }
  }
}
