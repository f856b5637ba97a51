// Why passkeys cannot be used at this page's address, and a link to where they can.
import { features } from '../state/session.ts';
import { passkeyPlace, type PasskeyPlace } from './passkey-address.ts';

/** What passkeyPlace() says of this page. */
export function thisPage(): PasskeyPlace | null {
  return passkeyPlace(window.location, features.value.network?.publicUrl ?? null, window.isSecureContext);
}

export function PasskeyWhere({ place }: { place: PasskeyPlace }) {
  return (
    <p class="warning small passkey-where" role="note">
      {place.problem}{' '}
      {place.there ? (
        <>
          Passkeys work at <a href={place.there}>{place.there}</a>.
        </>
      ) : (
        place.advice
      )}
    </p>
  );
}
