package dev.idempotent.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * A woven method's publisher, subscribed so that what its {@code subscribe} throws reaches the
 * subscriber as an error signal. Reactor throws the errors it calls fatal ({@code
 * Exceptions.throwIfFatal}: a {@code LinkageError} such as {@code ExceptionInInitializerError}, a
 * {@code VirtualMachineError} such as {@code StackOverflowError}) up the stack of whoever
 * subscribed or requested, instead of signalling them. The library subscribes to the body once the
 * claim's stage is done, inside that stage's callback, which would keep such an error: no signal
 * would arrive and the claim would stay held. Signalled here, the error settles the claim as a
 * failure and reaches the caller, whose {@code block()} throws it as it would without the library.
 *
 * <p>An error thrown on another thread (a scheduler's) never passes here: Reactor hands it to
 * {@code Schedulers.onHandleError}, with or without the library, and the subscriber gets no signal;
 * the claim then ends at {@code max-hold}.
 */
final class ThrownErrorSignal<T> implements CoreSubscriber<T>, Subscription {
  private final CoreSubscriber<? super T> actual;
  private final AtomicBoolean terminated = new AtomicBoolean();
  private volatile Subscription upstream;
  private volatile boolean subscribed;

  private ThrownErrorSignal(CoreSubscriber<? super T> actual) {
    this.actual = actual;
  }

  static <T> Mono<T> mono(Mono<T> source) {
    return Mono.fromDirect(subscriber -> subscribe(source, subscriber));
  }

  static <T> Flux<T> flux(Flux<T> source) {
    return Flux.from(subscriber -> subscribe(source, subscriber));
  }

  @SuppressWarnings("unchecked")
  private static <T> void subscribe(
      Publisher<T> source, org.reactivestreams.Subscriber<? super T> subscriber) {
    ThrownErrorSignal<T> signal =
        new ThrownErrorSignal<>((CoreSubscriber<? super T>) Operators.toCoreSubscriber(subscriber));
    try {
      source.subscribe(signal);
    } catch (Throwable thrown) {
      signal.thrown(thrown);
    }
  }

  /** {@code thrown} came out of the subscription: cancel what is left of it, then signal it. */
  private void thrown(Throwable thrown) {
    Subscription s = upstream;
    if (s != null) {
      try {
        s.cancel();
      } catch (Throwable ignored) {
        // the operator that threw may be broken; the error signalled below is what counts
      }
    }
    if (!subscribed) {
      subscribed = true;
      actual.onSubscribe(Operators.emptySubscription());
    }
    onError(thrown);
  }

  @Override
  public void onSubscribe(Subscription s) {
    if (Operators.validate(upstream, s)) {
      upstream = s;
      subscribed = true;
      actual.onSubscribe(this);
    }
  }

  @Override
  public void onNext(T item) {
    if (!terminated.get()) {
      actual.onNext(item);
    }
  }

  @Override
  public void onError(Throwable error) {
    if (terminated.compareAndSet(false, true)) {
      actual.onError(error);
    } else {
      Operators.onErrorDropped(error, actual.currentContext());
    }
  }

  @Override
  public void onComplete() {
    if (terminated.compareAndSet(false, true)) {
      actual.onComplete();
    }
  }

  @Override
  public void request(long n) {
    upstream.request(n);
  }

  @Override
  public void cancel() {
    upstream.cancel();
  }

  @Override
  public Context currentContext() {
    return actual.currentContext();
  }
}
