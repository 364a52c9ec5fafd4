package dev.idempotent.examples.kotlin

import dev.idempotent.Idempotent
import dev.idempotent.OnCancel
import dev.idempotent.OnInProgress
import java.io.Serializable
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.delay

/** What a payment returns; recorded, so a repeat gets the same receipt. */
data class Receipt(val id: String, val amount: Long, val run: Int) : Serializable

/** A payment the provider declined: recorded, so a repeat gets it again without charging. */
class DeclinedException(message: String) : RuntimeException(message)

/** Suspend functions made idempotent: kotlinc compiles them, ajc weaves them after. */
class PaymentService {
  val runs = AtomicInteger()

  // docs/reactive.md: a suspend function (begin)
  @Idempotent(key = "#id", onInProgress = OnInProgress.WAIT, recordFailures = [DeclinedException::class])
  suspend fun pay(id: String, amount: Long): Receipt {
    val run = runs.incrementAndGet()
    delay(50)
    if (amount < 0) throw DeclinedException("declined: $amount")
    if (amount == 0L) throw IllegalArgumentException("no amount")
    return Receipt(id, amount, run)
  }
  // docs/reactive.md: a suspend function (end)

  /** The thread the body of [payNow] last ran on. */
  @Volatile var lastThread: String? = null

  @Idempotent(key = "#id")
  suspend fun payNow(id: String, amount: Long): Receipt {
    lastThread = Thread.currentThread().name
    return Receipt(id, amount, runs.incrementAndGet())
  }

  @Idempotent(key = "#id", onCancel = OnCancel.RELEASE)
  suspend fun slowReleased(id: String): Receipt {
    val run = runs.incrementAndGet()
    delay(10_000)
    return Receipt(id, 0, run)
  }

  @Idempotent(key = "#id", onCancel = OnCancel.KEEP, lease = "30s")
  suspend fun slowKept(id: String): Receipt {
    val run = runs.incrementAndGet()
    delay(10_000)
    return Receipt(id, 0, run)
  }

  @Idempotent(key = "#order.id")
  suspend fun wrongKey(id: String): Receipt = Receipt(id, 0, runs.incrementAndGet())

  @Idempotent(key = "#id")
  suspend fun notify(id: String) {
    runs.incrementAndGet()
    delay(10)
  }

  /** Fails with an Error after suspending, as a class whose static initialiser failed would. */
  @Idempotent(key = "#id")
  suspend fun broken(id: String): Receipt {
    runs.incrementAndGet()
    delay(10)
    throw ExceptionInInitializerError("static init failed")
  }
}
