import source from "#app/content/privacy-notice.txt?raw";
import { PlainTextPage } from "#app/features/legal/plain-text-page";

export default function Privacy() {
  return (
    <PlainTextPage
      source={source}
      description="What Storefront stores about you, and how deleting your account works."
    />
  );
}
