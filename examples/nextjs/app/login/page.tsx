export default function LoginPage() {
  return (
    <form method="post" action="/api/login">
      <label>
        Email <input name="email" type="email" />
      </label>
      <label>
        Password <input name="password" type="password" />
      </label>
      <button>Sign in</button>
    </form>
  );
}
