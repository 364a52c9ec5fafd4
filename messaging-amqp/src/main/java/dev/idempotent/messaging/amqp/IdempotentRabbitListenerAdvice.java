package dev.idempotent.messaging.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.LongString;
import dev.idempotent.IdempotencyBlockedException;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.messaging.MessageClaim;
import dev.idempotent.messaging.MessageHandler;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageInProgressException;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.MessageOutcome;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ChannelProxy;
import org.springframework.amqp.rabbit.listener.exception.FatalListenerExecutionException;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.amqp.support.AmqpHeaders;

/**
 * Makes a Spring AMQP listener container's listener idempotent: give it to the container's advice
 * chain, first, so that it is the outermost advice (a retry advice after it retries inside one
 * claim).
 *
 * <pre>{@code
 * factory.setAdviceChain(IdempotentRabbitListenerAdvice.builder(
 *     MessageIdempotency.builder("orders.consumer").build()).build());
 * factory.setErrorHandler(new IdempotentRabbitErrorHandler());
 * }</pre>
 *
 * For each delivery it takes the message's key (the {@value MessageKey#HEADER} header, else the
 * {@code message-id}, unless a {@link Builder#keyFunction key function} is given) and runs the
 * listener once per key. Build it for the container's acknowledge mode ({@link
 * Builder#acknowledgeMode}; the Spring Boot starter follows each container's own):
 *
 * <ul>
 *   <li>{@link AcknowledgeMode#AUTO}: the listener runs through {@link MessageIdempotency#handle};
 *       it returns normally after the outcome is recorded, and the container acknowledges;
 *   <li>{@link AcknowledgeMode#MANUAL}: the key is claimed ({@link MessageIdempotency#claim}) and
 *       the listener gets its channel through a proxy: the {@code basicAck} that covers the
 *       delivery records the outcome before it is sent; a {@code basicNack} or {@code basicReject}
 *       (requeued or not) releases the key, so the message is never recorded as processed; a
 *       listener that returns without acknowledging leaves the claim held (its lease renewed, at
 *       most {@code maxHold}) until its acknowledgement arrives or the channel closes (which
 *       releases it). A replay is acknowledged, and a message in progress nacked with requeue, by
 *       the advice;
 *   <li>in progress in another delivery after the wait bound: the message is nacked with requeue
 *       (AUTO: through a {@link ListenerExecutionFailedException} caused by an {@link
 *       ImmediateRequeueAmqpException} around a {@link MessageInProgressException}, requeued even
 *       with {@code defaultRequeueRejected=false}; {@link IdempotentRabbitErrorHandler} logs it at
 *       DEBUG only and never rejects it). The delivery stays unacknowledged during the wait, so a
 *       requeued message is never redelivered in a hot loop;
 *   <li>the listener failed: the claim is settled as the settings say (released by default) and the
 *       container's exception goes on unchanged, to its retries and dead-lettering. A failure is
 *       recorded when it or one of its causes is one of the settings' recorded failures (the
 *       container wraps the listener's exception);
 *   <li>a repeat of a recorded failure, or a key blocked by {@code onAmbiguousFailure = BLOCK}: the
 *       listener does not run and the message is rejected without requeue, once (dead-lettered when
 *       the queue has a dead-letter exchange), through a {@link ListenerExecutionFailedException}
 *       caused by an {@link AmqpRejectAndDontRequeueException} around the recorded failure or the
 *       {@link IdempotencyBlockedException}; with MANUAL the advice rejects that delivery alone;
 *   <li>no key, a key the container decoded lossily, or one of a producer's batch
 *       (BatchingRabbitTemplate) without a key function: rejected without requeue, with an {@link
 *       IdempotencyKeyException} saying what to do.
 * </ul>
 *
 * Refused with a {@link FatalListenerExecutionException} (the consumer stops, its messages go back
 * to the queue): batch listeners ({@code consumerBatchEnabled}) and transacted channels ({@code
 * channelTransacted}, a container's transaction manager).
 */
public final class IdempotentRabbitListenerAdvice implements MethodInterceptor {
  /** The kind of broker identity an AMQP message's key is taken from: its {@code message-id}. */
  public static final String MESSAGE_ID = "amqp-message-id";

  private static final Logger LOG = LoggerFactory.getLogger(IdempotentRabbitListenerAdvice.class);

  private final MessageIdempotency idempotency;
  private final Function<String, MessageIdempotency> perQueue;
  private final Map<String, MessageIdempotency> queues = new ConcurrentHashMap<>();
  private final Function<Message, String> keyFunction;
  private final AcknowledgeMode acknowledgeMode;
  private final boolean manual;

  /** The deliveries of each channel whose claims wait for the listener's acknowledgement. */
  private final Map<Channel, PendingDeliveries> pending = new ConcurrentHashMap<>();

  private IdempotentRabbitListenerAdvice(Builder b) {
    // observations name these calls "rabbit"
    this.idempotency = b.idempotency == null ? null : b.idempotency.withAdapter("rabbit");
    Function<String, MessageIdempotency> given = b.perQueue;
    this.perQueue =
        given == null
            ? null
            : queue -> {
              MessageIdempotency m = given.apply(queue);
              return m == null ? null : m.withAdapter("rabbit");
            };
    this.keyFunction = b.keyFunction;
    this.acknowledgeMode = b.acknowledgeMode;
    this.manual = b.acknowledgeMode == AcknowledgeMode.MANUAL;
  }

  /**
   * @param idempotency the consumer's protocol: its scope (name the consumer or queue), store and
   *     wait bound
   */
  public static Builder builder(MessageIdempotency idempotency) {
    return new Builder(Objects.requireNonNull(idempotency, "idempotency"), null);
  }

  /**
   * An advice for containers that consume several queues, or for a container factory shared by
   * several listeners: each message runs under the protocol {@code perQueue} gives for the queue it
   * was consumed from (its scope names the queue), made once per queue.
   *
   * @param perQueue the protocol for a queue name
   */
  public static Builder perQueue(Function<String, MessageIdempotency> perQueue) {
    return new Builder(null, Objects.requireNonNull(perQueue, "perQueue"));
  }

  /** The acknowledge mode this advice was built for. */
  public AcknowledgeMode acknowledgeMode() {
    return acknowledgeMode;
  }

  /**
   * A copy of this advice (its scope, key function and the protocols it made so far) for a
   * container in {@code mode}: what a container factory's wiring uses to follow each container's
   * own mode.
   *
   * @throws IllegalArgumentException for {@link AcknowledgeMode#NONE}
   */
  public IdempotentRabbitListenerAdvice withAcknowledgeMode(AcknowledgeMode mode) {
    Builder b = new Builder(idempotency, perQueue);
    b.keyFunction = keyFunction;
    b.acknowledgeMode(mode);
    IdempotentRabbitListenerAdvice copy = new IdempotentRabbitListenerAdvice(b);
    copy.queues.putAll(queues);
    return copy;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object[] arguments = invocation.getArguments();
    if (!"invokeListener".equals(invocation.getMethod().getName())
        || arguments.length != 2
        || !(arguments[0] instanceof Channel channel)) {
      return invocation.proceed();
    }
    if (!(arguments[1] instanceof Message message)) {
      throw new FatalListenerExecutionException(
          "IdempotentRabbitListenerAdvice does not support batch listeners (scope "
              + (idempotency != null ? idempotency.scope() : "per queue")
              + "): turn consumerBatchEnabled off for this container, or remove the advice and make"
              + " the batch's work idempotent in the listener");
    }
    if (channel instanceof ChannelProxy proxy && proxy.isTransactional()) {
      throw new FatalListenerExecutionException(
          "IdempotentRabbitListenerAdvice does not support transacted channels (channelTransacted,"
              + " or a transaction manager on the container): the outcome would be recorded before"
              + " the channel's transaction commits, and a rolled-back transaction would leave a"
              + " processed record for a message whose work was undone. Turn channelTransacted off"
              + " and remove the container's transaction manager (publish with publisher confirms;"
              + " keep database work in the JDBC store's transaction: docs/stores/jdbc.md)");
    }
    MessageIdempotency idempotency = idempotencyOf(message);
    long deliveryTag = message.getMessageProperties().getDeliveryTag();
    MessageKey key;
    try {
      refuseBatchedMessage(message, idempotency.scope());
      key = keyOf(message, idempotency.scope());
    } catch (IdempotencyKeyException e) {
      throw rejected(manual ? channel : null, deliveryTag, e.getMessage(), e, message);
    }
    return manual
        ? invokeManual(invocation, arguments, channel, message, idempotency, key, deliveryTag)
        : invokeAuto(invocation, message, idempotency, key);
  }

  /** AUTO: the container acknowledges when the listener returns, after the outcome is recorded. */
  private Object invokeAuto(
      MethodInvocation invocation, Message message, MessageIdempotency idempotency, MessageKey key)
      throws Exception {
    MessageOutcome outcome;
    try {
      outcome = idempotency.handle(key, listener(invocation));
    } catch (Exception e) {
      if (e instanceof ListenerExecutionFailedException || !idempotency.isRecordedFailure(e)) {
        throw e;
      }
      throw finalFailure(null, 0, e, message);
    }
    if (outcome == MessageOutcome.IN_PROGRESS) {
      // requeued even where the container rejects failures without requeue
      // (defaultRequeueRejected=false): a message in progress is never a dead letter
      MessageInProgressException inProgress = idempotency.inProgress(key);
      throw new ListenerExecutionFailedException(
          "message handed back to the broker",
          new ImmediateRequeueAmqpException(inProgress.getMessage(), inProgress),
          message);
    }
    return null;
  }

  /**
   * MANUAL: the claim is held until the listener's acknowledgement of the delivery arrives on the
   * channel: an ack records the outcome first, a nack or reject releases the key, a closed channel
   * releases it.
   */
  private Object invokeManual(
      MethodInvocation invocation,
      Object[] arguments,
      Channel channel,
      Message message,
      MessageIdempotency idempotency,
      MessageKey key,
      long deliveryTag)
      throws Throwable {
    MessageClaim claim;
    try {
      claim = idempotency.claim(key);
    } catch (Exception e) {
      if (!idempotency.isRecordedFailure(e)) {
        // the store failed: hand the message back, as AUTO's container does
        channel.basicNack(deliveryTag, false, true);
        throw new ListenerExecutionFailedException(
            "the idempotency store failed before the listener ran: the message is requeued",
            e,
            message);
      }
      throw finalFailure(channel, deliveryTag, e, message);
    }
    if (!claim.runs()) {
      if (claim.outcome() == MessageOutcome.IN_PROGRESS) {
        if (LOG.isDebugEnabled()) {
          LOG.debug("{}: handed back to the broker", idempotency.inProgress(key).getMessage());
        }
        channel.basicNack(deliveryTag, false, true);
      } else {
        channel.basicAck(deliveryTag, false);
      }
      return null;
    }
    PendingDeliveries deliveries = pendingOf(channel);
    deliveries.add(deliveryTag, claim);
    arguments[0] = deliveries.proxy;
    RunningListener running = new RunningListener(deliveryTag, claim);
    RunningListener outer = deliveries.running.get();
    deliveries.running.set(running);
    Throwable failure = null;
    try {
      return invocation.proceed();
    } catch (Throwable t) {
      failure = t;
      if (deliveries.remove(deliveryTag, claim) || running.rejected()) {
        Exception settleWith =
            t instanceof Exception e
                ? e
                : new UndeclaredThrowableException(t, "the listener failed with " + t);
        Exception thrown = claim.fail(settleWith);
        if (thrown != settleWith) {
          failure = thrown; // the store must fail the call; the listener's failure is in it
        }
      }
      throw failure;
    } finally {
      deliveries.running.set(outer);
      if (failure == null && running.rejected()) {
        claim.release();
      }
      running.sendHeld(channel);
    }
    // returned without a rejection: the claim stays held until the acknowledgement arrives or the
    // channel closes
  }

  /**
   * The delivery whose listener runs on this thread: a nack or reject of it sent while the listener
   * runs is held, so that a listener that rejects and then throws a recorded failure has it
   * recorded (and one that rejects and returns has its key released) before the rejection is sent.
   */
  private static final class RunningListener {
    final long deliveryTag;
    final MessageClaim claim;
    private final List<Object[]> held = new ArrayList<>(1);
    private final List<Method> methods = new ArrayList<>(1);

    RunningListener(long deliveryTag, MessageClaim claim) {
      this.deliveryTag = deliveryTag;
      this.claim = claim;
    }

    boolean rejected() {
      return !held.isEmpty();
    }

    void hold(Method method, Object[] args) {
      methods.add(method);
      held.add(args);
    }

    void sendHeld(Channel channel) throws Exception {
      for (int i = 0; i < held.size(); i++) {
        try {
          methods.get(i).invoke(channel, held.get(i));
        } catch (InvocationTargetException e) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }
    }
  }

  /**
   * A repeat of a recorded failure, or a blocked key: the first delivery went through the retries
   * and the recoverer (or no delivery will ever finish the key); requeued, the repeat would come
   * back forever. Rejected without requeue, once.
   */
  private static ListenerExecutionFailedException finalFailure(
      Channel manualChannel, long deliveryTag, Exception e, Message message) throws IOException {
    String what =
        e instanceof IdempotencyBlockedException
            ? "the key of this message is blocked (onAmbiguousFailure = BLOCK): rejected without"
                + " requeue, to the dead-letter exchange. "
                + e.getMessage()
            : "the recorded failure of an earlier delivery of this message, replayed: rejected"
                + " without requeue";
    return rejected(manualChannel, deliveryTag, what, e, message);
  }

  /**
   * Rejects a message without requeue, once: with MANUAL ({@code manualChannel} given) the advice
   * rejects this delivery alone and the container, which rejects only for a {@code rejectManual}
   * exception (and then every unacknowledged delivery of its channel), does nothing more.
   */
  private static ListenerExecutionFailedException rejected(
      Channel manualChannel, long deliveryTag, String what, Exception cause, Message message)
      throws IOException {
    if (manualChannel != null) {
      manualChannel.basicReject(deliveryTag, false);
    }
    return new ListenerExecutionFailedException(
        what, new AmqpRejectAndDontRequeueException(cause.getMessage(), false, cause), message);
  }

  private PendingDeliveries pendingOf(Channel channel) {
    return pending.computeIfAbsent(
        channel,
        c -> {
          PendingDeliveries deliveries = new PendingDeliveries(c);
          c.addShutdownListener(
              cause -> {
                pending.remove(c);
                deliveries.releaseAll();
              });
          return deliveries;
        });
  }

  /** How many deliveries wait for the listener's acknowledgement (for tests and metrics). */
  int pendingDeliveries() {
    return pending.values().stream().mapToInt(PendingDeliveries::size).sum();
  }

  private void refuseBatchedMessage(Message message, String scope) {
    MessageProperties properties = message.getMessageProperties();
    boolean batched =
        properties.getHeader(AmqpHeaders.BATCH_SIZE) != null || properties.isLastInBatch();
    if (!batched || (keyFunction != null && !manual)) {
      return;
    }
    throw new IdempotencyKeyException(
        "the message is one of a producer's batch (BatchingRabbitTemplate): the container gives"
            + " every message of a batch the batch's properties (the first message's message-id"
            + " and headers), so it cannot be keyed by its own identity and the batch is rejected"
            + " whole. Publish these messages unbatched (RabbitTemplate)"
            + (manual
                ? ", or consume them with acknowledgeMode AUTO and a keyFunction that reads each"
                    + " message's own key from its body"
                : ", or give the advice a keyFunction that reads each message's own key from its"
                    + " body"),
        scope,
        null);
  }

  private MessageIdempotency idempotencyOf(Message message) {
    if (idempotency != null) {
      return idempotency;
    }
    String queue = message.getMessageProperties().getConsumerQueue();
    if (queue == null) {
      throw new FatalListenerExecutionException(
          "the message has no consumer queue, so the idempotent advice cannot choose its scope:"
              + " give the advice one MessageIdempotency (IdempotentRabbitListenerAdvice.builder)");
    }
    // one entry per queue the application's containers consume: bounded by the application
    return queues.computeIfAbsent(queue, perQueue);
  }

  private MessageKey keyOf(Message message, String scope) {
    if (keyFunction != null) {
      return MessageKey.of(keyFunction.apply(message), scope);
    }
    Object header = message.getMessageProperties().getHeader(MessageKey.HEADER);
    if (header instanceof byte[] bytes) {
      return MessageKey.fromHeader(bytes, scope); // bytes that are not UTF-8 are kept exact
    }
    if (header instanceof LongString longString) {
      return MessageKey.fromHeader(longString.getBytes(), scope);
    }
    if (header instanceof String text && text.indexOf('\uFFFD') >= 0) {
      throw new IdempotencyKeyException(
          "the "
              + MessageKey.HEADER
              + " header holds U+FFFD, the mark the container leaves where it decoded bytes that"
              + " are not UTF-8: two different keys may have become one text. The producer must"
              + " send the key as UTF-8 text, or as a byte array header (kept exact)",
          scope,
          null);
    }
    if (header != null && !(header instanceof String)) {
      throw new IdempotencyKeyException(
          "the "
              + MessageKey.HEADER
              + " header is a "
              + header.getClass().getName()
              + ", not text: the producer must send a short text key",
          scope,
          null);
    }
    return MessageKey.resolve(
        (String) header, MESSAGE_ID, message.getMessageProperties().getMessageId(), scope);
  }

  private static MessageHandler listener(MethodInvocation invocation) {
    return () -> {
      try {
        invocation.proceed();
      } catch (Exception | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new UndeclaredThrowableException(t);
      }
    };
  }

  /**
   * The deliveries of one channel whose listener ran and whose acknowledgement is awaited (MANUAL),
   * and the channel the listener gets: its {@code basicAck}, {@code basicNack} and {@code
   * basicReject} settle the claims they cover before they are sent.
   */
  private static final class PendingDeliveries implements InvocationHandler {
    private final Channel channel;
    private final Channel proxy;
    private final ConcurrentSkipListMap<Long, MessageClaim> claims = new ConcurrentSkipListMap<>();
    final ThreadLocal<RunningListener> running = new ThreadLocal<>();

    PendingDeliveries(Channel channel) {
      this.channel = channel;
      this.proxy =
          (Channel)
              Proxy.newProxyInstance(
                  IdempotentRabbitListenerAdvice.class.getClassLoader(),
                  channel instanceof ChannelProxy
                      ? new Class<?>[] {ChannelProxy.class}
                      : new Class<?>[] {Channel.class},
                  this);
    }

    void add(long deliveryTag, MessageClaim claim) {
      claims.put(deliveryTag, claim);
    }

    boolean remove(long deliveryTag, MessageClaim claim) {
      return claims.remove(deliveryTag, claim);
    }

    int size() {
      return claims.size();
    }

    /**
     * The channel closed: the broker requeues its unacknowledged deliveries; their keys go free.
     */
    void releaseAll() {
      for (Long tag : claims.keySet()) {
        MessageClaim claim = claims.remove(tag);
        if (claim != null) {
          try {
            claim.release();
          } catch (Exception e) {
            LOG.warn(
                "releasing the claim of an unacknowledged delivery of a closed channel failed; it"
                    + " ends with its lease: {}",
                e.toString());
          }
        }
      }
    }

    @Override
    public Object invoke(Object target, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (args != null && args.length >= 2 && args[0] instanceof Long tag) {
        boolean multiple =
            (name.equals("basicAck") || name.equals("basicNack")) && (Boolean) args[1];
        if (name.equals("basicAck") && args.length == 2) {
          settle(tag, multiple, true);
        } else if ((name.equals("basicNack") && args.length == 3)
            || (name.equals("basicReject") && args.length == 2)) {
          RunningListener current = running.get();
          if (current != null
              && (multiple ? current.deliveryTag <= tag : current.deliveryTag == tag)
              && claims.remove(current.deliveryTag, current.claim)) {
            // settled when the listener returns or throws, and sent after that
            if (multiple) {
              settle(tag, true, false);
            }
            current.hold(method, args);
            return null;
          }
          settle(tag, multiple, false);
        }
      }
      if (name.equals("equals") && args != null && args.length == 1) {
        return target == args[0];
      }
      if (name.equals("hashCode") && (args == null || args.length == 0)) {
        return System.identityHashCode(target);
      }
      try {
        return method.invoke(channel, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    /**
     * An ack records the outcome of each delivery it covers before it is sent (when a record fails,
     * the ack is not sent and the call fails); a nack or reject releases their keys: the message
     * was not processed, whether it is requeued or dead-lettered.
     */
    private void settle(long tag, boolean multiple, boolean ack) throws IOException {
      Map<Long, MessageClaim> covered =
          multiple ? claims.headMap(tag, true) : claims.subMap(tag, true, tag, true);
      Exception failure = null;
      for (Long t : List.copyOf(covered.keySet())) {
        MessageClaim claim = claims.remove(t);
        if (claim == null) {
          continue;
        }
        try {
          if (ack) {
            claim.complete();
          } else {
            claim.release();
          }
        } catch (Exception e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null && ack) {
        throw new IOException(
            "the outcome of the acknowledged message could not be recorded, so it is not"
                + " acknowledged (it is delivered again when the channel closes): "
                + failure.getMessage(),
            failure);
      }
      if (failure != null) {
        LOG.warn(
            "releasing the key of a negatively acknowledged message failed; it ends with its lease:"
                + " {}",
            failure.toString());
      }
    }
  }

  /** Validating builder. */
  public static final class Builder {
    private final MessageIdempotency idempotency;
    private final Function<String, MessageIdempotency> perQueue;
    private Function<Message, String> keyFunction;
    private AcknowledgeMode acknowledgeMode = AcknowledgeMode.AUTO;

    private Builder(MessageIdempotency idempotency, Function<String, MessageIdempotency> perQueue) {
      this.idempotency = idempotency;
      this.perQueue = perQueue;
    }

    /**
     * The key of a message, in place of its {@value MessageKey#HEADER} header or {@code
     * message-id}: for example a business id from the headers or the body. It must give the same
     * key on every delivery of one message.
     */
    public Builder keyFunction(Function<Message, String> keyFunction) {
      this.keyFunction = Objects.requireNonNull(keyFunction, "keyFunction");
      return this;
    }

    /**
     * The container's acknowledge mode (default {@link AcknowledgeMode#AUTO}): set {@link
     * AcknowledgeMode#MANUAL} when the container has it (or its listener's {@code ackMode}, or it
     * replies asynchronously), so that only the listener's acknowledgement records the outcome and
     * the advice acknowledges replays itself. {@link AcknowledgeMode#NONE} acknowledges on
     * delivery: a message in progress cannot be handed back and is lost, so it is refused.
     */
    public Builder acknowledgeMode(AcknowledgeMode acknowledgeMode) {
      Objects.requireNonNull(acknowledgeMode, "acknowledgeMode");
      if (acknowledgeMode == AcknowledgeMode.NONE) {
        throw new IllegalArgumentException(
            "acknowledgeMode NONE acknowledges every message on delivery, so a message still in"
                + " progress elsewhere could not be handed back to the broker: use AUTO or MANUAL");
      }
      this.acknowledgeMode = acknowledgeMode;
      return this;
    }

    public IdempotentRabbitListenerAdvice build() {
      return new IdempotentRabbitListenerAdvice(this);
    }
  }
}
