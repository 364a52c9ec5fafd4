package dev.idempotent.messaging.amqp;

import com.rabbitmq.client.Channel;
import dev.idempotent.IdempotencyKeyException;
import dev.idempotent.messaging.MessageHandler;
import dev.idempotent.messaging.MessageIdempotency;
import dev.idempotent.messaging.MessageKey;
import dev.idempotent.messaging.MessageOutcome;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.exception.FatalListenerExecutionException;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

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
 * listener through {@link MessageIdempotency#handle}:
 *
 * <ul>
 *   <li>processed or replayed: the listener returns normally and the container acknowledges the
 *       message ({@link AcknowledgeMode#AUTO}), after the outcome is recorded. With {@link
 *       AcknowledgeMode#MANUAL}, the acknowledgements the listener sends on its channel are held
 *       until the outcome is recorded (or the claim settled), and a replayed message is
 *       acknowledged by the advice;
 *   <li>in progress in another delivery after the wait bound: the message is nacked with requeue,
 *       through a {@link ListenerExecutionFailedException} caused by a {@link
 *       dev.idempotent.messaging.MessageInProgressException} ({@link IdempotentRabbitErrorHandler}
 *       logs it at DEBUG only and never rejects it); with MANUAL the advice nacks it itself. The
 *       delivery stays unacknowledged during the wait, so a requeued message is never redelivered
 *       in a hot loop;
 *   <li>the listener failed: the claim is settled as the settings say (released by default) and the
 *       container's exception goes on unchanged, to its retries and dead-lettering. A failure is
 *       recorded when it or one of its causes is one of the settings' recorded failures (the
 *       container wraps the listener's exception);
 *   <li>a repeat of a recorded failure: the listener does not run and the message is rejected
 *       without requeue (dead-lettered when the queue has a dead-letter exchange), through a {@link
 *       ListenerExecutionFailedException} caused by an {@link AmqpRejectAndDontRequeueException}
 *       around the recorded failure: the first delivery already went through the retries;
 *   <li>no key: rejected without requeue (dead-lettered when the queue has a dead-letter exchange),
 *       with an {@link IdempotencyKeyException} saying what to set.
 * </ul>
 *
 * Batch listeners ({@code consumerBatchEnabled}) are not supported: a batch stops the consumer with
 * a {@link FatalListenerExecutionException} saying so (its messages are not acknowledged and go
 * back to the queue).
 */
public final class IdempotentRabbitListenerAdvice implements MethodInterceptor {
  /** The kind of broker identity an AMQP message's key is taken from: its {@code message-id}. */
  public static final String MESSAGE_ID = "amqp-message-id";

  private static final Set<String> ACKNOWLEDGEMENTS =
      Set.of("basicAck", "basicNack", "basicReject");

  private final MessageIdempotency idempotency;
  private final Function<String, MessageIdempotency> perQueue;
  private final Map<String, MessageIdempotency> queues = new ConcurrentHashMap<>();
  private final Function<Message, String> keyFunction;
  private final boolean manual;

  private IdempotentRabbitListenerAdvice(Builder b) {
    this.idempotency = b.idempotency;
    this.perQueue = b.perQueue;
    this.keyFunction = b.keyFunction;
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
    MessageIdempotency idempotency = idempotencyOf(message);
    MessageKey key;
    try {
      key = keyOf(message, idempotency.scope());
    } catch (IdempotencyKeyException e) {
      throw new ListenerExecutionFailedException(
          e.getMessage(), new AmqpRejectAndDontRequeueException(e.getMessage(), true, e), message);
    }
    long deliveryTag = message.getMessageProperties().getDeliveryTag();
    HeldAcknowledgements held = null;
    if (manual) {
      held = new HeldAcknowledgements(channel);
      arguments[0] = held.proxy();
    }
    MessageOutcome outcome;
    try {
      outcome = idempotency.handle(key, listener(invocation));
    } catch (Exception e) {
      if (e instanceof ListenerExecutionFailedException || !idempotency.isRecordedFailure(e)) {
        throw e;
      }
      // a repeat of a recorded failure: the first delivery went through the retries and the
      // recoverer; requeued, the repeat would come back forever
      if (manual) {
        channel.basicReject(deliveryTag, false);
      }
      throw new ListenerExecutionFailedException(
          "the recorded failure of an earlier delivery of this message, replayed: rejected without"
              + " requeue",
          new AmqpRejectAndDontRequeueException(e.getMessage(), true, e),
          message);
    } finally {
      if (held != null) {
        held.send();
      }
    }
    switch (outcome) {
      case PROCESSED:
        return null;
      case REPLAYED:
        if (manual) {
          channel.basicAck(deliveryTag, false);
        }
        return null;
      case IN_PROGRESS:
      default:
        if (manual) {
          channel.basicNack(deliveryTag, false, true);
          return null;
        }
        throw new ListenerExecutionFailedException(
            "message handed back to the broker", idempotency.inProgress(key), message);
    }
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
    String headerValue;
    if (header == null || header instanceof String) {
      headerValue = (String) header;
    } else if (header instanceof byte[] bytes) {
      headerValue = new String(bytes, StandardCharsets.UTF_8);
    } else {
      throw new IdempotencyKeyException(
          "the "
              + MessageKey.HEADER
              + " header is a "
              + header.getClass().getName()
              + ", not text (or it is over the container's long-string limit): the producer must"
              + " send a short text key",
          scope,
          null);
    }
    return MessageKey.resolve(
        headerValue, MESSAGE_ID, message.getMessageProperties().getMessageId(), scope);
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
   * The listener's channel with its acknowledgements held back, to be sent once the outcome is
   * recorded.
   */
  private static final class HeldAcknowledgements implements InvocationHandler {
    private final Channel channel;
    private final List<Object[]> calls = new ArrayList<>(1);
    private final List<Method> methods = new ArrayList<>(1);

    HeldAcknowledgements(Channel channel) {
      this.channel = channel;
    }

    Channel proxy() {
      return (Channel)
          Proxy.newProxyInstance(
              Channel.class.getClassLoader(), new Class<?>[] {Channel.class}, this);
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      if (ACKNOWLEDGEMENTS.contains(method.getName()) && method.getReturnType() == void.class) {
        methods.add(method);
        calls.add(args);
        return null;
      }
      try {
        return method.invoke(channel, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    void send() throws Exception {
      for (int i = 0; i < calls.size(); i++) {
        try {
          methods.get(i).invoke(channel, calls.get(i));
        } catch (InvocationTargetException e) {
          if (e.getCause() instanceof Exception cause) {
            throw cause;
          }
          throw e;
        }
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
     * AcknowledgeMode#MANUAL} when the container has it, so that the advice holds the listener's
     * acknowledgements until the outcome is recorded and acknowledges replays itself. {@link
     * AcknowledgeMode#NONE} acknowledges on delivery: a message in progress cannot be handed back
     * and is lost, so it is refused.
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
