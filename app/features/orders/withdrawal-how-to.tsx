// How to withdraw from a contract under EU law, in a few sentences on /returns.

/**
 * How to withdraw, on /returns: the EU right of withdrawal in a few sentences, and the way to the order's "Withdraw
 * from contract here" for a guest without the e-mail at hand ("Find an order", further down the same page).
 */
export function WithdrawalHowTo() {
  return (
    <section className="withdrawal-how-to" aria-labelledby="withdrawal-how-to-heading">
      <h2 id="withdrawal-how-to-heading">Withdrawing from your order</h2>
      <p>
        If your order was delivered to a country of the European Union, Iceland, Liechtenstein or Norway, you may
        withdraw from the contract within 14 days of delivery, without giving any reason.
      </p>
      <p>
        Open your order (from its e-mail, from Your Orders, or with <a href="#find-order-heading">Find an order</a>) and
        choose &ldquo;Withdraw from contract here&rdquo;. We confirm your withdrawal by e-mail at once, and refund what
        you paid, with the original delivery charge when you withdraw from the whole order, to your original payment
        method.
      </p>
    </section>
  );
}
