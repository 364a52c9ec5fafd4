package dev.idempotent.spring.it;

import java.io.Serializable;

/**
 * What the order API answers; read back by the java codec because idempotent.codec.allow names this
 * package.
 */
public record Receipt(String item, int quantity, int number) implements Serializable {}
